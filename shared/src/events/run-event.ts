import type { UIMessageChunk } from 'ai';
import type { RunDataChunk } from './data-parts';

/** One chunk of the AI SDK UI message stream, or one of our data parts. */
export type RunChunk = UIMessageChunk | RunDataChunk;

/**
 * What travels through Redis and SSE: a chunk with the run id and a gap-free per-run sequence number (from 1).
 * `at` (epoch ms) is when the worker emitted it (a coalesced delta: its first token); events written before it existed lack it. SSE sends only `chunk`.
 */
export type RunEvent = { runId: string; seq: number; chunk: RunChunk; at?: number };

/**
 * A token of a text or reasoning part, or a piece of a tool call's input as the model streams it
 * (a provider sends a long input, a file to write or a query, a few characters at a time).
 */
export type DeltaChunk = Extract<RunChunk, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;

export function isDelta(chunk: RunChunk): chunk is DeltaChunk {
  return chunk.type === 'text-delta' || chunk.type === 'reasoning-delta' || chunk.type === 'tool-input-delta';
}

/** The part a delta extends: a text or reasoning part's id, a tool call's id. */
export function deltaPart(chunk: DeltaChunk): string {
  return chunk.type === 'tool-input-delta' ? `tool:${chunk.toolCallId}` : `${chunk.type}:${chunk.id}`;
}

/**
 * `next` merged into `previous` when both are deltas of the same part (else undefined): the text
 * joined, which the AI SDK's reducer reads as it reads the pieces one by one (a tool call's input
 * is parsed from all of its text so far), and the provider metadata it would keep (the last a
 * part's tokens carried).
 */
export function mergeDeltas(previous: RunChunk | undefined, next: RunChunk): DeltaChunk | undefined {
  if (!previous || !isDelta(previous) || !isDelta(next) || deltaPart(previous) !== deltaPart(next)) return undefined;
  // The same part, so the same type.
  if (previous.type === 'tool-input-delta') return { ...previous, inputTextDelta: previous.inputTextDelta + (next as typeof previous).inputTextDelta };
  const token = next as typeof previous;
  const providerMetadata = token.providerMetadata ?? previous.providerMetadata;
  return { ...previous, delta: previous.delta + token.delta, ...(providerMetadata && { providerMetadata }) };
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
