import { z } from 'zod';
import type { Database } from '../../db/client';
import { findFlaggedEndpoint, type ModelEndpoint } from '../flagged-model';
import { causeOf, scrubSecret } from '../upstream-error';

/** Where embeddings come from: the model flagged "Embeds text". */
export type EmbeddingEndpoint = ModelEndpoint;

export type EmbeddingOutcome = { ok: true; vectors: number[][] } | { ok: false; message: string };

/** Inputs per `/embeddings` request: OpenAI takes up to 2,048, but smaller batches fail and retry cheaper. */
export const EMBEDDING_BATCH_SIZE = 64;
export const EMBEDDING_TIMEOUT_MS = 60_000;

const embeddingAnswer = z.object({ data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().optional() })) });

/**
 * The enabled model flagged "Embeds text", with its decrypted key, or null when there is none. Read
 * through the config cache. @throws {SecretDecryptionError} when APP_SECRET is not the one the key was stored with.
 */
export function findEmbeddingModel(db: Database, appSecret: string): Promise<EmbeddingEndpoint | null> {
  return findFlaggedEndpoint(db, appSecret, 'embedsText');
}

/** `vector` scaled to length 1, so a dot product is the cosine similarity. */
export function normalize(vector: readonly number[]): number[] {
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return length > 0 ? vector.map((value) => value / length) : [...vector];
}

/**
 * `POST {baseUrl}/embeddings` with `{ model, input: [...] }` in batches of EMBEDDING_BATCH_SIZE; the
 * vectors come back normalised, in input order. Failures are values whose message never holds the key.
 */
export async function embedTexts(endpoint: EmbeddingEndpoint, inputs: readonly string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingOutcome> {
  const vectors: number[][] = [];
  for (let start = 0; start < inputs.length; start += EMBEDDING_BATCH_SIZE) {
    const batch = inputs.slice(start, start + EMBEDDING_BATCH_SIZE);
    const outcome = await embedBatch(endpoint, batch, options.signal);
    if (!outcome.ok) return outcome;
    vectors.push(...outcome.vectors);
  }
  return { ok: true, vectors };
}

async function embedBatch(endpoint: EmbeddingEndpoint, input: string[], signal: AbortSignal | undefined): Promise<EmbeddingOutcome> {
  const timeout = AbortSignal.timeout(EMBEDDING_TIMEOUT_MS);
  const scrub = (text: string) => scrubSecret(text, endpoint.apiKey);
  let response: Response;
  try {
    response = await fetch(`${endpoint.baseUrl.replace(/\/+$/, '')}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }) },
      body: JSON.stringify({ model: endpoint.modelId, input }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (timeout.aborted) return { ok: false, message: `The embedding model did not answer within ${EMBEDDING_TIMEOUT_MS / 1000} s` };
    return { ok: false, message: `The embedding model could not be reached (${scrub(causeOf(error))})` };
  }
  const body = await response.text().catch(() => '');
  if (!response.ok) return { ok: false, message: `The embedding model failed with HTTP ${response.status}${body ? `: ${scrub(body.trim()).slice(0, 300)}` : ''}` };
  let parsed: z.ZodSafeParseResult<z.infer<typeof embeddingAnswer>>;
  try {
    parsed = embeddingAnswer.safeParse(JSON.parse(body));
  } catch {
    parsed = embeddingAnswer.safeParse(undefined);
  }
  if (!parsed.success || parsed.data.data.length !== input.length) {
    return { ok: false, message: 'The embedding model answered without one `data[].embedding` per input (is it an OpenAI-compatible embeddings endpoint?)' };
  }
  const ordered = [...parsed.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  return { ok: true, vectors: ordered.map((item) => normalize(item.embedding)) };
}
