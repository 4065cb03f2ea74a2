import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createJobWaiter, createQueues, enqueue, queueCatalog } from '@agentq/shared/queues';
import { createWorkerRedis } from '@agentq/shared/redis';
import { randomPrefix, silentLogger, testDatabaseUrl, testRedisUrl, openTestDb } from '@agentq/shared/testing';
import { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { ProcessorMap } from './processor';
import { startWorkers } from './worker';
import { RunControl } from './agent/run-control';
import type { WorkerDeps } from './processor';

function testDeps(db: WorkerDeps['db'], redis: WorkerDeps['redis'], queues: WorkerDeps['queues'], prefix: string): WorkerDeps {
  return { db, redis, queues, logger: silentLogger, allowPrivateNetworks: false, control: new RunControl(redis.duplicate(), prefix), config: { prefix, appSecret: 'test-secret-0123456789', approvalTimeoutMs: 60_000 } };
}

describe('worker pool', () => {
  it('runs on the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });

  it('round-trips a job through the queue catalog: validated payload in, processor result out', async () => {
    const prefix = randomPrefix('worker');
    const redis = createWorkerRedis(testRedisUrl());
    const database = await openTestDb();
    const queues = createQueues(redis, prefix);
    const seen: string[] = [];
    const processors = {
      chatTurns: { 'chat-turn': async (job) => ({ echoed: job.data.runId }) },
      toolExecutions: {
        'tool-exec': async (job) => {
          seen.push(job.data.runId);
          return { ran: job.data.runId };
        },
      },
      scheduleFires: { 'schedule-fire': async () => ({}) },
      webhookDeliveries: { 'webhook-delivery': async () => ({}) },
      knowledgeIngestions: { 'knowledge-ingestion': async () => ({}) },
      accountEmails: { 'account-email': async () => ({}) },
    } satisfies ProcessorMap;
    const pool = startWorkers(processors, testDeps(database.db, redis, queues, prefix), { connection: redis, prefix, concurrency: 2 });
    const events = new QueueEvents(queueCatalog.toolExecutions.name, { connection: createWorkerRedis(testRedisUrl()), prefix });
    try {
      await events.waitUntilReady();
      const job = await enqueue(queues, 'toolExecutions', 'tool-exec', { runId: 'run_roundtrip' });
      expect(await job.waitUntilFinished(events, 10_000)).toEqual({ ran: 'run_roundtrip' });
      expect(seen).toEqual(['run_roundtrip']);
      await expect(enqueue(queues, 'toolExecutions', 'tool-exec', { runId: '' })).rejects.toThrow();
    } finally {
      await events.close();
      await pool.close(5000);
      await queues.close();
      redis.disconnect();
      await database.close();
    }
  });

  it("tells a waiting request why a job failed without the database's query or parameters", async () => {
    const prefix = randomPrefix('worker-failure');
    const redis = createWorkerRedis(testRedisUrl());
    const database = await openTestDb();
    const queues = createQueues(redis, prefix);
    const jobs = createJobWaiter(testRedisUrl(), queues);
    // What drizzle throws when PostgreSQL refuses a statement: the query and its values in the message.
    const queryError = (code: string, message: string) =>
      new Error('Failed query: insert into "runs" ("id", "user_id") values ($1, $2)\nparams: run_failed,usr_private', { cause: Object.assign(new Error(message), { code }) });
    const processors = {
      chatTurns: { 'chat-turn': async () => ({}) },
      toolExecutions: {
        'tool-exec': async (job) => {
          throw job.data.runId === 'run_refused' ? queryError('53300', 'sorry, too many clients already') : queryError('23505', 'duplicate key value violates unique constraint "runs_pkey"');
        },
      },
      scheduleFires: { 'schedule-fire': async () => ({}) },
      webhookDeliveries: { 'webhook-delivery': async () => ({}) },
      knowledgeIngestions: { 'knowledge-ingestion': async () => ({}) },
      accountEmails: { 'account-email': async () => ({}) },
    } satisfies ProcessorMap;
    const pool = startWorkers(processors, testDeps(database.db, redis, queues, prefix), { connection: redis, prefix, concurrency: 2 });
    try {
      const outcomeOf = async (runId: string) => {
        const expectation = await jobs.expect('toolExecutions', runId);
        await enqueue(queues, 'toolExecutions', 'tool-exec', { runId }, { jobId: runId, attempts: 1 });
        return expectation.result(10_000).then(
          () => 'succeeded',
          (error: Error) => error.message,
        );
      };
      expect(await outcomeOf('run_duplicate')).toBe('duplicate key value violates unique constraint "runs_pkey"');
      expect(await outcomeOf('run_refused')).toBe('A service the run needs (database or queue) was unavailable; try again shortly');
    } finally {
      await pool.close(5000);
      await jobs.close();
      await queues.close();
      redis.disconnect();
      await database.close();
    }
  });
});

describe('shutdown deadline', () => {
  it('close() returns by its deadline even when a job never finishes', async () => {
    const prefix = randomPrefix('deadline');
    const redis = createWorkerRedis(testRedisUrl());
    const database = await openTestDb();
    const queues = createQueues(redis, prefix);
    let started = false;
    const never = new Promise(() => {});
    const processors = {
      chatTurns: { 'chat-turn': async () => never },
      toolExecutions: {
        'tool-exec': async () => {
          started = true;
          return never;
        },
      },
      scheduleFires: { 'schedule-fire': async () => ({}) },
      webhookDeliveries: { 'webhook-delivery': async () => ({}) },
      knowledgeIngestions: { 'knowledge-ingestion': async () => ({}) },
      accountEmails: { 'account-email': async () => ({}) },
    } satisfies ProcessorMap;
    const pool = startWorkers(processors, testDeps(database.db, redis, queues, prefix), { connection: redis, prefix, concurrency: 1 });
    try {
      await enqueue(queues, 'toolExecutions', 'tool-exec', { runId: 'run_stuck' });
      await expect.poll(() => started, { timeout: 10_000 }).toBe(true);
      const before = Date.now();
      const { timedOut } = await pool.close(500);
      expect(timedOut).toBe(true);
      expect(Date.now() - before).toBeLessThan(3000);
    } finally {
      await queues.close();
      redis.disconnect();
      await database.close();
    }
  });
});

describe('worker process', () => {
  it('closes its workers and exits 0 on SIGTERM', async () => {
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), QUEUE_PREFIX: randomPrefix('sigterm'), APP_SECRET: 'test-secret-0123456789', WORKER_SHUTDOWN_DEADLINE_MS: '2000', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    await expect.poll(() => output, { timeout: 20_000, interval: 100 }).toContain('worker started');
    const started = Date.now();
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(output).toContain('worker stopped');
  });
});
