import type { RunChunk } from '@agentq/shared/events';
import type { ApiClient } from '../testing/api-client';
import type { HarnessOptions } from './options';
import { openEventStream, postJson } from './http';
import { createProgress } from './progress';

export type StreamCheck = { events: number; lost: number; duplicated: number; outOfOrder: number; finished: boolean; status?: string };

export type RunSample = {
  ok: boolean;
  error?: string;
  startedAt: number;
  enqueueMs: number;
  firstEventMs?: number;
  ttftMs?: number;
  /** approval scenario: from sending the approval to the first token of the continued run. */
  approveToTokenMs?: number;
  e2eMs?: number;
  finishedAt?: number;
  tokensDelivered: number;
  streams: StreamCheck[];
};

type Reader = { check: StreamCheck; text: string };

/**
 * Reads one SSE connection to the end, checking sequence numbers as it goes: a repeat is a
 * duplicate, a step back an out-of-order event, and every number never seen up to the last one lost.
 */
type EventStream = Awaited<ReturnType<typeof openEventStream>>;

async function readStream(
  stream: EventStream,
  startedAt: number,
  hooks: { onFirstEvent?: (at: number) => void; onFirstToken?: (at: number) => void; onChunk?: (chunk: RunChunk) => void | Promise<void> },
): Promise<Reader> {
  if (stream.status !== 200) throw new Error(`events ${stream.status}`);
  const seen = new Set<number>();
  let last = 0;
  let max = 0;
  const check: StreamCheck = { events: 0, lost: 0, duplicated: 0, outOfOrder: 0, finished: false };
  let text = '';
  for await (const { id: seq, data, at } of stream.frames) {
    if (data === '[DONE]' || seq === undefined || !data) continue;
    if (check.events === 0) hooks.onFirstEvent?.(at - startedAt);
    check.events++;
    if (seen.has(seq)) check.duplicated++;
    else if (seq < last) check.outOfOrder++;
    seen.add(seq);
    last = seq;
    max = Math.max(max, seq);
    const chunk = JSON.parse(data) as RunChunk;
    if (chunk.type === 'text-delta') {
      if (text.length === 0) hooks.onFirstToken?.(at - startedAt);
      text += chunk.delta;
    }
    if (chunk.type === 'finish') check.finished = true;
    if (chunk.type === 'data-run-status') check.status = (chunk.data as { status: string }).status;
    await hooks.onChunk?.(chunk);
  }
  check.lost = max - seen.size;
  return { check, text };
}

/** Drives `options.runs` runs through the real API at `options.concurrency`, reading every stream. */
export async function driveRuns(client: ApiClient, options: HarnessOptions, expectedText: string): Promise<{ samples: RunSample[]; wallMs: number }> {
  const samples: RunSample[] = [];
  const progress = createProgress(`${options.scenario}`, options.runs, options.quiet);
  let next = 0;
  let done = 0;
  let failures = 0;
  const expectedWords = expectedText.trim().split(/\s+/);
  const started = performance.now();

  async function one(index: number): Promise<RunSample> {
    // node:http like the timed requests: fetch's cost would be the harness's, on the same two cores.
    const session = await postJson(client, '/api/sessions', { title: `load ${index}` });
    if (session.status !== 201) throw new Error(`session ${session.status}`);
    const startedAt = performance.now();
    const runsPath = `/api/sessions/${session.body.id}/runs`;
    const body = { content: `load run ${index}` };
    // One request (the POST answers the run's stream, enqueue time = its head), or 202 then a GET per reader.
    const posted = options.oneRequest ? await openEventStream(`${client.baseUrl}${runsPath}`, { cookie: client.cookieHeader }, { body }) : undefined;
    const enqueue = posted ? undefined : await postJson(client, runsPath, body);
    const enqueueMs = performance.now() - startedAt;
    if (posted && posted.status !== 200) throw new Error(`enqueue ${posted.status}`);
    if (enqueue && enqueue.status !== 202) throw new Error(`enqueue ${enqueue.status}: ${JSON.stringify(enqueue.body)}`);
    const runId = posted ? String(posted.headers['x-agentq-run-id']) : (enqueue!.body.runId as string);
    const openReader = async (reader: number) => (reader === 0 && posted ? posted : openEventStream(`${client.baseUrl}/api/runs/${runId}/events`, { cookie: client.cookieHeader }));
    const sample: RunSample = { ok: false, startedAt, enqueueMs, tokensDelivered: 0, streams: [] };
    let approveSentAt: number | undefined;
    const subscribers = options.scenario === 'fanout' ? options.subscribers : 1;
    const readers = Array.from({ length: subscribers }, async (_, reader) =>
      readStream(await openReader(reader), startedAt, {
        onFirstEvent: reader === 0 ? (at) => (sample.firstEventMs = at) : undefined,
        onFirstToken:
          reader === 0
            ? (at) => {
                sample.ttftMs = at;
                if (approveSentAt !== undefined) sample.approveToTokenMs = startedAt + at - approveSentAt;
              }
            : undefined,
        onChunk:
          reader === 0 && options.scenario === 'approval'
            ? async (chunk) => {
                if (chunk.type === 'data-approval-request') {
                  approveSentAt = performance.now();
                  const decided = await postJson(client, `/api/approvals/${(chunk.data as { approvalId: string }).approvalId}`, { decision: 'approve' });
                  if (decided.status !== 200) throw new Error(`approve ${decided.status}`);
                }
              }
            : undefined,
      }),
    );
    const results = await Promise.all(readers);
    sample.finishedAt = performance.now();
    sample.e2eMs = sample.finishedAt - startedAt;
    sample.streams = results.map((result) => result.check);
    const delivered = results[0]!.text.trim().split(/\s+/).filter(Boolean);
    sample.tokensDelivered = delivered.filter((word, position) => word === expectedWords[position]).length;
    sample.ok = results.every((result) => result.check.finished && result.check.status === 'succeeded');
    if (!sample.ok) {
      const failed = results.find((result) => !result.check.finished || result.check.status !== 'succeeded')!.check;
      const run = failed.finished ? await client.get(`/api/runs/${runId}`) : undefined;
      sample.error = failed.finished ? `run ${failed.status}: ${run?.body.error ?? ''}` : 'stream ended without finish';
    }
    return sample;
  }

  async function lane() {
    while (next < options.runs) {
      const index = next++;
      try {
        samples.push(await one(index));
      } catch (error) {
        failures++;
        samples.push({ ok: false, error: error instanceof Error ? error.message : String(error), startedAt: performance.now(), enqueueMs: 0, tokensDelivered: 0, streams: [] });
      }
      done++;
      progress.update(done, failures ? `errors ${failures}` : '');
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.runs) }, () => lane()));
  progress.done();
  return { samples, wallMs: performance.now() - started };
}
