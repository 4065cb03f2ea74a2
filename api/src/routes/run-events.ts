import { messageToChunks, type RunChunk, type RunEvent } from '@agentq/shared/events';
import type { Run } from '@agentq/shared/services';
import { firstRunEventSeq, readRunEvents } from '@agentq/shared/run-stream';
import { getRunFor, isTerminal } from '@agentq/shared/services';
import { messages } from '@agentq/shared/db';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../deps';
import { currentUser } from '../middleware/auth';
import { parseLastEventId } from '../security/last-event-id';

const serialized = new WeakMap<RunEvent, string>();

/** The chunk's JSON, computed once per event object however many followers send it. */
function serializedChunk(event: RunEvent): string {
  let data = serialized.get(event);
  if (data === undefined) {
    data = JSON.stringify(event.chunk);
    serialized.set(event, data);
  }
  return data;
}

/** A finished run replayed from its persisted message (sequence numbers of the replay itself). */
function replayFromMessage(run: Run, parts: unknown[]): RunEvent[] {
  const chunks: RunChunk[] = messageToChunks(run.id, parts);
  chunks.push({
    type: 'data-run-status',
    transient: true,
    data: { status: run.status, finishReason: run.finishReason ?? undefined, steps: run.steps, hitStepLimit: run.hitStepLimit, error: run.error ?? undefined },
  });
  if (run.error) chunks.push({ type: 'error', errorText: run.error });
  chunks.push({ type: 'finish' });
  return chunks.map((chunk, index) => ({ runId: run.id, seq: index + 1, chunk }));
}

/**
 * GET /api/runs/:id/events — the run as an AI SDK UI message stream over SSE. Replays after
 * Last-Event-ID from the run's Redis stream, then follows live pub/sub, deduplicated and ordered by
 * sequence number; closes after `finish`. A finished run whose stream expired is replayed from its message.
 */
export async function streamRunEvents(c: Context<AppEnv>, runId: string) {
  const run = await getRunFor(c.var.db, runId, currentUser(c));
  const afterSeq = parseLastEventId(c.req.header('last-event-id') ?? c.req.query('lastEventId'));
  const { redis, runEvents, queues, config } = c.var;
  const prefix = queues.prefix;

  c.header('x-vercel-ai-ui-message-stream', 'v1');
  c.header('x-accel-buffering', 'no');
  c.header('cache-control', 'no-cache, no-transform');

  return streamSSE(c, async function followRun(stream) {
    let lastSent = afterSeq;
    let finished = false;
    let wake: (() => void) | undefined;
    const live: RunEvent[] = [];
    const onLive = (events: RunEvent[]) => {
      live.push(...events);
      wake?.();
    };
    const unsubscribe = await runEvents.subscribe(run.id, onLive);
    const release = () => void unsubscribe();
    stream.onAbort(release);
    c.req.raw.signal.addEventListener('abort', release, { once: true });

    async function send(events: RunEvent[]) {
      for (const event of events) {
        if (event.seq <= lastSent) continue;
        if (event.seq > lastSent + 1) {
          // A gap between what we sent and this live event: fill it from the stream first.
          const missing = await readRunEvents(redis, prefix, run.id, lastSent);
          for (const gap of missing) if (gap.seq < event.seq && gap.seq > lastSent) await write(gap);
        }
        if (event.seq === lastSent + 1) await write(event);
        if (finished) return;
      }
    }
    async function write(event: RunEvent) {
      await stream.writeSSE({ id: String(event.seq), data: serializedChunk(event) });
      lastSent = event.seq;
      if (event.chunk.type === 'finish') finished = true;
    }

    try {
      const stored = await readRunEvents(redis, prefix, run.id, afterSeq);
      const firstHeld = stored.length > 0 ? stored[0]!.seq : await firstRunEventSeq(redis, prefix, run.id);
      const terminal = isTerminal((await getRunFor(c.var.db, run.id, currentUser(c))).status);
      if (terminal && (firstHeld === 0 || firstHeld > afterSeq + 1)) {
        // The stream expired or was trimmed. A fresh reader gets the persisted message; a reader that
        // already saw part of the run cannot be continued from it (other numbering), so it is told the run is over.
        if (afterSeq === 0) {
          const [message] = await c.var.db.select().from(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
          const finalRun = await getRunFor(c.var.db, run.id, currentUser(c));
          for (const event of replayFromMessage(finalRun, message?.parts ?? [])) await write(event);
        }
        await stream.write('data: [DONE]\n\n');
        return;
      }
      if (terminal && stored.length === 0) {
        // Reconnected after the end: nothing is left to send.
        await stream.write('data: [DONE]\n\n');
        return;
      }
      await send(stored);
      const heartbeatMs = config.sseHeartbeatSeconds * 1000;
      while (!finished && !stream.aborted && !stream.closed) {
        if (live.length > 0) {
          await send(live.splice(0, live.length));
          continue;
        }
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut && !stream.aborted) await stream.write(': keep-alive\n\n');
      }
      if (finished) await stream.write('data: [DONE]\n\n');
    } finally {
      release();
    }
  });
}
