import { messageToChunks, type RunChunk, type RunEvent } from '@agentq/shared/events';
import type { Run } from '@agentq/shared/services';
import { readRunEvents, readStoredStream } from '@agentq/shared/run-stream';
import { getRunFor, isDependencyDown, isTerminal } from '@agentq/shared/services';
import { messages } from '@agentq/shared/db';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { currentUser } from '../middleware/auth';
import { parseLastEventId } from '../security/last-event-id';
import { sseResponse } from './sse-response';

const frames = new WeakMap<RunEvent, Uint8Array>();
const encoder = new TextEncoder();

/**
 * The event's SSE frame (`data:` the chunk's JSON, `id:` its sequence number) as bytes, encoded
 * once per event object however many followers send it. JSON has no raw line breaks, so the data is one line.
 */
function sseFrame(event: RunEvent): Uint8Array {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = encoder.encode(`data: ${JSON.stringify(event.chunk)}\nid: ${event.seq}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

/** The chunks that end an ended run's stream, read from its database row: final status, error, `finish`. */
function endChunks(run: Run): RunChunk[] {
  const chunks: RunChunk[] = [
    {
      type: 'data-run-status',
      transient: true,
      data: { status: run.status, finishReason: run.finishReason ?? undefined, steps: run.steps, hitStepLimit: run.hitStepLimit, error: run.error ?? undefined },
    },
  ];
  if (run.error) chunks.push({ type: 'error', errorText: run.error });
  chunks.push({ type: 'finish' });
  return chunks;
}

/** Numbers chunks as events from `afterSeq + 1` on. */
const numbered = (runId: string, chunks: RunChunk[], afterSeq = 0): RunEvent[] => chunks.map((chunk, index) => ({ runId, seq: afterSeq + index + 1, chunk }));

/** A finished run replayed from its persisted message (sequence numbers of the replay itself). */
function replayFromMessage(run: Run, parts: unknown[]): RunEvent[] {
  return numbered(run.id, [...messageToChunks(run.id, parts), ...endChunks(run)]);
}

/**
 * Heartbeats a follower of a run the database calls ended waits for the stream's own end. The worker
 * settles the database first and publishes the final status and `finish` right after (or, if it died
 * in between, its job's retry does); only when neither comes is the end sent from the database.
 */
const END_GRACE_HEARTBEATS = 4;

/**
 * GET /api/runs/:id/events — the run as an AI SDK UI message stream over SSE. Replays after
 * Last-Event-ID from the run's Redis stream, then follows live pub/sub, deduplicated and ordered by
 * sequence number; closes after `finish`. A finished run whose stream expired is replayed from its message.
 */
export async function streamRunEvents(c: Context<AppEnv>, runId: string) {
  return followRunOverSse(c, { runId }, parseLastEventId(c.req.header('last-event-id') ?? c.req.query('lastEventId')));
}

/**
 * The stream of a run this request has just created, answered on the same request: subscribed
 * before `enqueue` hands the run to the workers, so nothing can have been published before the
 * subscription and there is no stored stream to read or database to look at again. A failed
 * enqueue drops the subscription and is thrown as it came (nothing was answered yet).
 */
export async function streamNewRun(c: Context<AppEnv>, run: Run, enqueue: () => Promise<void>) {
  return followRunOverSse(c, { run, enqueue }, 0);
}

/** Whom to follow: a run looked up for the viewer, or one this request created and still has to enqueue. */
type FollowTarget = { runId: string } | { run: Run; enqueue: () => Promise<void> };

async function followRunOverSse(c: Context<AppEnv>, target: FollowTarget, afterSeq: number) {
  const { redis, runEvents, queues, config } = c.var;
  const prefix = queues.prefix;
  const runId = 'run' in target ? target.run.id : target.runId;
  const lookUp = () => getRunFor(c.get('db'), runId, currentUser(c));
  // The first follow of a run this process just created needs no read of it (CreatedRuns).
  const created = 'run' in target ? undefined : c.var.createdRuns.take(runId, currentUser(c));

  let wake: (() => void) | undefined;
  /** Set when events may have been missed (reconnect, gap, heartbeat): the loop re-reads the stream. */
  let needsRead = false;
  const live: RunEvent[] = [];
  const onLive = (events: RunEvent[]) => {
    live.push(...events);
    wake?.();
  };
  const onResync = () => {
    needsRead = true;
    wake?.();
  };

  // Subscribe first, then read the run and what is stored, side by side: whatever is published from
  // here on arrives live, everything before is in the stream, and a run the database does not call
  // ended publishes its end after this point. With Redis down this request gets a 503 with
  // Retry-After (the error funnel), not a stream that hangs or ends empty. Nothing is sent before
  // the run is known to be the viewer's.
  let unsubscribe: (() => Promise<void>) | undefined;
  let run: Run;
  let stored: RunEvent[];
  let firstHeld: number;
  let terminal: boolean;
  /** The reader has every stored event and the last of them is `finish`: it saw the end already. */
  let endSeen = false;
  try {
    unsubscribe = await runEvents.subscribe(runId, onLive, onResync).catch(async (error: unknown) => {
      // A run that is not the viewer's is a 404, outage or not.
      if (!('run' in target) && !created) await lookUp();
      throw error;
    });
    if ('run' in target) {
      await target.enqueue();
      [run, stored, firstHeld, terminal] = [target.run, [], 0, false];
    } else {
      const [found, { events, firstSeq, last }] = await Promise.all([created ?? lookUp(), readStoredStream(redis, prefix, runId, afterSeq)]);
      [run, stored, firstHeld, terminal] = [found, events, events.length > 0 ? events[0]!.seq : firstSeq, isTerminal(found.status)];
      // Ended and nothing new stored: either a reconnect after `finish` (only `[DONE]` was lost), or
      // the database was settled and the stream's end is still on its way — then the reader follows on.
      endSeen = terminal && stored.length === 0 && firstHeld > 0 && firstHeld <= afterSeq + 1 && last?.chunk.type === 'finish';
    }
  } catch (error) {
    // No stream is answered: the subscription goes too (a run not found, or a database outage).
    void unsubscribe?.();
    throw error;
  }

  c.header('x-vercel-ai-ui-message-stream', 'v1');
  c.header('x-accel-buffering', 'no');

  return sseResponse(c, async function followRun(stream) {
    let lastSent = afterSeq;
    let finished = false;
    const release = () => void unsubscribe?.();
    stream.onAbort(release);
    c.req.raw.signal.addEventListener('abort', release, { once: true });

    /**
     * Writes events in sequence order, all of them in one socket write (a batch from the worker is
     * usually several events); a gap before a live event is filled by the next stream read.
     */
    async function send(events: RunEvent[]) {
      const frames: Uint8Array[] = [];
      for (const event of events) {
        if (finished) break;
        if (event.seq <= lastSent) continue;
        if (event.seq > lastSent + 1) {
          needsRead = true;
          break;
        }
        frames.push(sseFrame(event));
        lastSent = event.seq;
        if (event.chunk.type === 'finish') finished = true;
      }
      if (frames.length > 0) await stream.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
    }
    /** Catches up from the stored stream; while Redis is down it leaves `needsRead` set and the loop retries. */
    async function readStored() {
      needsRead = false;
      try {
        await send(await readRunEvents(redis, prefix, run.id, lastSent));
      } catch (error) {
        if (!isDependencyDown(error)) throw error;
        needsRead = true;
      }
    }

    try {
      if (terminal && (firstHeld === 0 || firstHeld > afterSeq + 1)) {
        // The stream expired or was trimmed. A fresh reader gets the persisted message; a reader that
        // already saw part of the run cannot be continued from it (other numbering), so it is told the run is over.
        if (afterSeq === 0) {
          const [message] = await c.get('db').select().from(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
          const finalRun = await lookUp();
          await send(replayFromMessage(finalRun, message?.parts ?? []));
        }
        await stream.write('data: [DONE]\n\n');
        return;
      }
      if (endSeen) {
        // Reconnected after the end: nothing is left to send.
        await stream.write('data: [DONE]\n\n');
        return;
      }
      await send(stored);
      const heartbeatMs = config.sseHeartbeatSeconds * 1000;
      let lastWriteAt = Date.now();
      const endBy = terminal ? Date.now() + END_GRACE_HEARTBEATS * heartbeatMs : Infinity;
      while (!finished && !stream.aborted && !stream.closed) {
        if (live.length > 0) {
          const sentBefore = lastSent;
          await send(live.splice(0, live.length));
          if (lastSent !== sentBefore) lastWriteAt = Date.now();
          continue;
        }
        if (needsRead) {
          const sentBefore = lastSent;
          await readStored();
          if (lastSent !== sentBefore) lastWriteAt = Date.now();
          if (finished) break;
        }
        // A failed catch-up read is retried soon; otherwise sleep until the next event or heartbeat.
        if (Date.now() >= endBy) {
          // The stream's end never came: the database's outcome ends it, numbered on from what was sent.
          await readStored();
          if (!finished) await send(numbered(run.id, endChunks(await lookUp()), lastSent));
          break;
        }
        const waitMs = Math.min(endBy - Date.now(), needsRead ? Math.min(500, heartbeatMs) : Math.max(0, heartbeatMs - (Date.now() - lastWriteAt)));
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), waitMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut && !stream.aborted && Date.now() - lastWriteAt >= heartbeatMs) {
          await stream.write(': keep-alive\n\n');
          lastWriteAt = Date.now();
          // Pub/sub is at most once: a quiet stream also re-reads what is stored, so nothing missed stays missed.
          needsRead = true;
        }
      }
      if (finished) await stream.write('data: [DONE]\n\n');
    } finally {
      release();
    }
  });
}
