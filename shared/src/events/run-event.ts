import type { UIMessageChunk } from 'ai';
import type { RunDataChunk } from './data-parts';

/** One chunk of the AI SDK UI message stream, or one of our data parts. */
export type RunChunk = UIMessageChunk | RunDataChunk;

/**
 * What travels through Redis and SSE: a chunk with the run id and a gap-free per-run sequence number (from 1).
 * `at` (epoch ms) is when the worker emitted it (a coalesced delta: its first token); events written before it existed lack it. SSE sends only `chunk`.
 */
export type RunEvent = { runId: string; seq: number; chunk: RunChunk; at?: number };

/** A token of a text or reasoning part. */
export type DeltaChunk = Extract<RunChunk, { type: 'text-delta' | 'reasoning-delta' }>;

export function isDelta(chunk: RunChunk): chunk is DeltaChunk {
  return chunk.type === 'text-delta' || chunk.type === 'reasoning-delta';
}

/**
 * `next` merged into `previous` when both are tokens of the same part (else undefined): the text
 * joined, and the provider metadata the AI SDK's reducer would keep (the last a part's tokens carried).
 */
export function mergeDeltas(previous: RunChunk | undefined, next: RunChunk): DeltaChunk | undefined {
  if (!previous || !isDelta(previous) || !isDelta(next) || previous.type !== next.type || previous.id !== next.id) return undefined;
  const providerMetadata = next.providerMetadata ?? previous.providerMetadata;
  return { ...previous, delta: previous.delta + next.delta, ...(providerMetadata && { providerMetadata }) };
}

/** True for the event after which a run's stream has nothing more to say. */
export function isFinalEvent(chunk: RunChunk): boolean {
  return chunk.type === 'finish';
}

/** Tool output as our tool wrappers produce it: the text the model saw plus what the UI shows. */
export type ToolOutput = {
  success: boolean;
  /** Exactly what the model received (seed 000 §3.4 wording). */
  text: string;
  data?: unknown;
  error?: string;
  durationMs: number;
  metadata?: Record<string, unknown>;
  /** The recorded result was reused: the call had already run before a retry. */
  replayed?: boolean;
  /** A crash interrupted the call and it is non-idempotent: it was not repeated (it may or may not have taken effect). */
  interrupted?: boolean;
};
