import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../testing/api-client';
import { postJson } from './http';
import { percentiles, round, type Percentiles } from './stats';

/**
 * The same turns straight through `streamText` in this process against the same fake server: no
 * queue, no Redis, no HTTP API, no database. With `toolSlug` the model gets the same tool (answered
 * in-process), so tool scenarios compare like with like.
 */
export async function directBaseline(llmUrl: string, runs: number, concurrency: number, toolSlug?: string): Promise<{ ttftMs: Percentiles; e2eMs: Percentiles; runsPerSec: number }> {
  const model = createOpenAICompatible({ name: 'direct', baseURL: llmUrl, apiKey: 'direct', includeUsage: true }).chatModel('load');
  const tools = toolSlug
    ? { [toolSlug]: tool({ description: 'Evaluate arithmetic', inputSchema: z.object({ expression: z.string() }), execute: async () => '[calc result]\n42' }) }
    : undefined;
  const ttft: number[] = [];
  const e2e: number[] = [];
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < runs) {
      const index = next++;
      const begin = performance.now();
      const result = streamText({ model, messages: [{ role: 'user', content: `load run ${index}` }], tools, stopWhen: isStepCount(4) });
      let first = true;
      for await (const part of result.stream) {
        if (part.type === 'text-delta' && first) {
          ttft.push(performance.now() - begin);
          first = false;
        }
      }
      e2e.push(performance.now() - begin);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, runs) }, () => lane()));
  return { ttftMs: percentiles(ttft), e2eMs: percentiles(e2e), runsPerSec: round(runs / ((performance.now() - started) / 1000)) };
}

/** Raw BullMQ: no-op jobs through a Queue and a Worker on the same Redis; the queue's own ceiling. */
export async function rawBullmqBaseline(redisUrl: string, jobs: number, concurrency: number): Promise<number> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const name = `bench-${randomBytes(4).toString('hex')}`;
  const prefix = 'aq-bench';
  const queue = new Queue(name, { connection, prefix });
  let completed = 0;
  let resolveDone: () => void = () => {};
  const allDone = new Promise<void>((resolve) => (resolveDone = resolve));
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker(
    name,
    async () => {
      completed++;
      if (completed === jobs) resolveDone();
    },
    { connection: workerConnection, prefix, concurrency },
  );
  await worker.waitUntilReady();
  const started = performance.now();
  for (let offset = 0; offset < jobs; offset += 500) {
    await queue.addBulk(Array.from({ length: Math.min(500, jobs - offset) }, (_, index) => ({ name: 'noop', data: { index: offset + index }, opts: { removeOnComplete: true } })));
  }
  await allDone;
  const perSec = jobs / ((performance.now() - started) / 1000);
  await worker.close();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  connection.disconnect();
  // BullMQ never closes a connection it was given: this one kept the harness alive after its report.
  workerConnection.disconnect();
  return round(perSec);
}

/** Standalone tool executions through our path: HTTP → queue → worker → PostgreSQL log → result. */
export async function toolExecutionBaseline(client: ApiClient, toolId: string, executions: number, concurrency: number): Promise<{ perSec: number; errors: number; firstError?: string }> {
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  async function lane() {
    while (next < executions) {
      next++;
      // node:http like the rest of what the harness times: fetch's own cost is the harness's, not agentq's.
      const response = await postJson(client, `/api/agent-tools/${toolId}/execute`, { input: { expression: '6 * 7' } });
      if (response.status !== 200 || !response.body.result?.success) {
        errors++;
        firstError ??= `${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, executions) }, () => lane()));
  return { perSec: round(executions / ((performance.now() - started) / 1000)), errors, firstError };
}

/** Mean PING round trip to Redis in ms. */
export async function redisRtt(redisUrl: string, pings = 500): Promise<number> {
  const redis = new Redis(redisUrl);
  await redis.ping();
  const started = performance.now();
  for (let index = 0; index < pings; index++) await redis.ping();
  const mean = (performance.now() - started) / pings;
  redis.disconnect();
  return round(mean, 3);
}
