import type { Redis } from 'ioredis';
import { deltaPart, isDelta, mergeDeltas, type RunChunk, type RunEvent } from '../events';
import { isDependencyDown } from '../services/errors';
import { runChannelCommands } from '../redis/pubsub';
import { redisScript } from '../redis/scripts';
import { RUN_STREAM_MAX_EVENTS, RUN_STREAM_TTL_SECONDS, runStreamKeys } from './keys';
import { firstEntrySeq, type StreamEntry } from './reader';

/**
 * A delta waits 5–55 ms (30 on average) for more tokens: until the next point of a 50 ms grid
 * shared by every run of the process that is at least 5 ms away. Every run's coalesced flushes
 * fall due on the same ticks, and they leave in one socket write per tick instead of one per run
 * (every connection openRedis makes coalesces its writes, see coalesceWrites): every write to a
 * loopback socket wakes Redis, and those wake-ups were the largest part of the publisher's cost. A run streaming
 * steadily flushes once per tick: 20 updates a second at most, the UI throttle the AI SDK's
 * chatbot docs use (`throttle: 50`). Against the 45–55 ms wait on a 10 ms grid before it (change
 * 66), which spread a process's runs over five phases, a 50-token answer is ~13.5 flushes instead
 * of ~12.5 but a worker writes ~26 % fewer scripts to Redis and the API wakes fewer times for
 * them: ~7 % less CPU per token across the API and workers (docs/benchmarks.md, change 71). A
 * part's first delta never waits (the first token the user waits for).
 */
const COALESCE_MIN_MS = 5;
const FLUSH_GRID_MS = 50;
/** The longest a coalesced delta waits before its flush (a client pacing one event per token stays above it). */
export const DELTA_COALESCE_MAX_MS = COALESCE_MIN_MS + FLUSH_GRID_MS;
/** A write keeps retrying a Redis that is restarting (LOADING) or unreachable this long before the run sees the error. */
export const PUBLISH_RETRY_FOR_MS = 120_000;
const RETRY_BASE_MS = 50;
const RETRY_MAX_MS = 2_000;

/**
 * XADDs a batch's events (after the first `skip`, already in the stream after a failed attempt)
 * and publishes the whole batch as one JSON array built from the same serialized events.
 * Followers deduplicate by seq, so announcing a batch twice after a retry is harmless.
 * A script rather than a pipeline of XADDs and a PUBLISH: one command for ioredis to build and
 * parse per flush (the pipeline was ~10 % of a worker's busy time in a profile of the text and tool scenarios) and one
 * serialization per event. The channel shares the stream's hash tag, so on a cluster the script's
 * SPUBLISH stays in its key's slot. A run's last batch also sets the stream's expiry (ttl > 0),
 * so ending a run is one command, not the batch and an EXPIRE after it.
 * KEYS: stream. ARGV: publish command, channel, max length, skip, ttl (0: none), then (id, json) per event.
 */
const APPEND_RUN_EVENTS_LUA = `
local payloads = {}
local skip = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local count = (#ARGV - 5) / 2
for index = 1, count do
  local json = ARGV[5 + index * 2]
  if index > skip then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], ARGV[4 + index * 2], 'e', json)
  end
  payloads[index] = json
end
redis.call(ARGV[1], ARGV[2], '[' .. table.concat(payloads, ',') .. ']')
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return count
`;
const appendRunEventsScript = redisScript<[stream: string, publish: string, channel: string, maxLength: number, skip: number, ttlSeconds: number, ...idsAndEvents: string[]], number>(
  'agentqAppendRunEvents',
  APPEND_RUN_EVENTS_LUA,
  { numberOfKeys: 1, definedBy: 'defineRunStreamCommands' },
);

/** Defines the publisher's script on a connection; an auto-pipelined one needs it when it is created (redisScript). */
export const defineRunStreamCommands = appendRunEventsScript.define;

/**
 * Adds a batch of a run's events to its stream, except the first `skip` (already there after an
 * attempt that failed part-way), and announces the whole batch on its channel: one round trip.
 * With `ttlSeconds` the stream then expires that long after (the run's last batch).
 */
export async function appendRunEvents(redis: Redis, keys: ReturnType<typeof runStreamKeys>, events: RunEvent[], skip = 0, ttlSeconds = 0): Promise<void> {
  const idsAndEvents = events.flatMap((event) => [`${event.seq}-0`, JSON.stringify(event)]);
  await appendRunEventsScript.run(redis, keys.events, runChannelCommands(redis).publish, keys.channel, RUN_STREAM_MAX_EVENTS, skip, ttlSeconds, ...idsAndEvents);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Publishes a run's events: each gets the next sequence number and its emit time (`at`), goes to the run's capped Redis
 * stream and is announced on pub/sub. Deltas are coalesced and writes are pipelined on a short
 * timer, so the model's token rate never turns into one awaited Redis round trip per token.
 * Writes are chained (per-run order holds) and retried with backoff while Redis is restarting or
 * unreachable; a failure that outlasts the retries surfaces on the next awaited flush, never as an
 * unhandled rejection from the timer.
 */
export class RunEventPublisher {
  private pending: RunChunk[] = [];
  /** When each pending chunk was emitted (epoch ms); a merged delta keeps its first token's time. */
  private pendingAt: number[] = [];
  /** The scheduled flush: a timer on the shared grid when a delta opened the batch, the next turn of the event loop otherwise. */
  private scheduled: { cancel: () => void; soon: boolean } | undefined;
  /** The part the last delta belonged to: a part's first delta goes out at once, the rest are coalesced. */
  private deltaPart = '';
  private chain: Promise<void> = Promise.resolve();
  /** What every write waits for while set (holdUntil). */
  private hold: Promise<unknown> | undefined;
  private failure: unknown;
  private nextSeq: number;
  readonly keys: ReturnType<typeof runStreamKeys>;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly runId: string,
    lastSeq: number,
    private readonly onEvent?: (event: RunEvent) => void,
    private readonly retryForMs = PUBLISH_RETRY_FOR_MS,
  ) {
    this.keys = runStreamKeys(prefix, runId);
    this.nextSeq = lastSeq + 1;
  }

  /** The sequence number the last flushed-or-pending event will carry. */
  get lastSeq(): number {
    return this.nextSeq - 1 + this.pending.length;
  }

  /** Queues a chunk; consecutive deltas of the same part (text, reasoning, a tool call's input) merge into one event. */
  emit(chunk: RunChunk): void {
    const merged = mergeDeltas(this.pending.at(-1), chunk);
    if (merged) {
      this.pending[this.pending.length - 1] = merged;
      return;
    }
    this.pending.push(chunk);
    this.pendingAt.push(Date.now());
    let soon = true;
    if (isDelta(chunk)) {
      const part = deltaPart(chunk);
      // A tool call's input is not what the reader waits for (its tool-input-start already shows the
      // call): even its first piece waits, usually to go out with the rest or the complete call.
      soon = part !== this.deltaPart && chunk.type !== 'tool-input-delta';
      this.deltaPart = part;
    }
    if (this.scheduled && (this.scheduled.soon || !soon)) return;
    this.scheduled?.cancel();
    this.scheduled = this.schedule(soon);
  }

  /**
   * A delta (a token, a piece of a tool call's input) waits about 50 ms for more to merge with.
   * Anything else (start, status, a complete tool call) and a text or reasoning part's first
   * delta (the first token the user waits for) go out on setImmediate: after whatever else is
   * emitted in the same turn, without setTimeout(0)'s 1 ms floor.
   */
  private schedule(soon: boolean): { cancel: () => void; soon: boolean } {
    // The flush is not awaited by anyone: its failure is kept for the next awaited flush.
    const flush = () => void this.flush().catch(() => {});
    if (!soon) {
      const now = performance.now();
      const timer = setTimeout(flush, Math.ceil((now + COALESCE_MIN_MS) / FLUSH_GRID_MS) * FLUSH_GRID_MS - now);
      return { cancel: () => clearTimeout(timer), soon };
    }
    const immediate = setImmediate(flush);
    return { cancel: () => clearImmediate(immediate), soon };
  }

  /**
   * Writes nothing until `gate` resolves, and nothing at all if it rejects (its reason is then every
   * flush's failure): events emitted meanwhile wait, numbered as usual. For a run whose model call
   * started before its claim returned (processChatTurn).
   */
  holdUntil(gate: Promise<unknown>): void {
    this.hold = gate;
    gate.then(
      () => {
        if (this.hold === gate) this.hold = undefined;
      },
      () => {},
    );
  }

  /** Writes everything queued so far; resolves once Redis has it. Throws the first write failure. */
  flush(): Promise<void> {
    return this.flushBatch(0);
  }

  /** flush, the batch (if any) setting the stream's expiry when `ttlSeconds` > 0. */
  private flushBatch(ttlSeconds: number): Promise<void> {
    this.scheduled?.cancel();
    this.scheduled = undefined;
    const chunks = this.pending;
    const times = this.pendingAt;
    this.pending = [];
    this.pendingAt = [];
    if (chunks.length > 0) {
      const events = chunks.map((chunk, index) => ({ runId: this.runId, seq: this.nextSeq++, chunk, at: times[index] ?? Date.now() }));
      for (const event of events) this.onEvent?.(event);
      const hold = this.hold;
      this.chain = (hold ? this.chain.then(() => hold) : this.chain).then(() => this.write(events, ttlSeconds)).catch((error) => {
        this.failure ??= error;
      });
    }
    return this.chain.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  private async write(events: RunEvent[], ttlSeconds: number) {
    await this.retrying(async (attempt) => {
      // After a failed attempt the batch may already be in the stream (the connection dropped after
      // the script ran); XADD refuses ids at or below the top, so only the rest is added again.
      const top = attempt > 0 ? await streamTopSeq(this.redis, this.keys.events) : 0;
      await appendRunEvents(this.redis, this.keys, events, events.filter((event) => event.seq <= top).length, ttlSeconds);
    });
  }

  /** Runs `operation` until it succeeds, retrying transient Redis failures with capped exponential backoff. */
  private async retrying<T>(operation: (attempt: number) => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await operation(attempt);
      } catch (error) {
        if (!isDependencyDown(error) || Date.now() - started >= this.retryForMs) throw error;
        await sleep(Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_MAX_MS));
      }
    }
  }

  /**
   * Flushes and lets the stream expire after the run has ended. A run ends by emitting its final
   * status and `finish`, so the last batch sets the expiry in its own script; only a close with
   * nothing left to write sends an EXPIRE of its own.
   */
  async close(ttlSeconds = RUN_STREAM_TTL_SECONDS): Promise<void> {
    if (this.pending.length > 0) return this.flushBatch(ttlSeconds);
    await this.flush();
    await this.retrying(() => this.redis.expire(this.keys.events, ttlSeconds));
  }
}

/** The last sequence number written for a run (0 when none), so a resumed run continues the numbering. */
export async function lastRunEventSeq(redis: Redis, prefix: string, runId: string): Promise<number> {
  return streamTopSeq(redis, runStreamKeys(prefix, runId).events);
}

async function streamTopSeq(redis: Redis, key: string): Promise<number> {
  return firstEntrySeq((await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as StreamEntry[]);
}
