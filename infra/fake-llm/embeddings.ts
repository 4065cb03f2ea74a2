import { createHash } from 'node:crypto';

/**
 * `POST /v1/embeddings` of the fake LLM: deterministic vectors from a hashed bag of word stems, so
 * texts that share words score a higher cosine similarity than texts that do not, which is enough
 * for retrieval tests without a real model. English words are lower-cased, stripped of common
 * endings ("meetings" → "meet") and stop words; CJK text counts as character bigrams.
 */

export const FAKE_EMBEDDING_DIMENSIONS = 256;

const STOP_WORDS = new Set('a an and are as at be by for from has have how i in is it its of on or that the their this to was were what when where which who why will with you your do does did can we our'.split(' '));
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** The features of a text: stemmed English words and CJK bigrams. */
export function embeddingFeatures(text: string): string[] {
  const lower = text.toLowerCase();
  const words = (lower.match(/[a-z0-9]+/g) ?? [])
    .filter((word) => !STOP_WORDS.has(word))
    .map((word) => (word.length > 4 ? word.replace(/(ings|ing|edly|ed|es|s)$/, '') : word));
  const bigrams = [...lower.matchAll(CJK_RUN)].flatMap(([run]) => (run.length === 1 ? [run] : Array.from({ length: run.length - 1 }, (_, index) => run.slice(index, index + 2))));
  return [...words, ...bigrams];
}

/** A unit-length vector of FAKE_EMBEDDING_DIMENSIONS: each feature adds ±1 at a hashed index. */
export function fakeEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const feature of embeddingFeatures(text)) {
    const digest = createHash('sha256').update(feature).digest();
    vector[digest.readUInt32BE(0) % dimensions]! += digest[4]! & 1 ? 1 : -1;
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  // An empty text still gets a vector (OpenAI answers one for any string): a fixed unit vector.
  if (length === 0) return vector.map((_, index) => (index === 0 ? 1 : 0));
  return vector.map((value) => value / length);
}

export type EmbeddingRequest = { model: string; input: string[]; authorization: string | undefined };

export type EmbeddingsAnswer = { status: number; body: unknown; request?: EmbeddingRequest };

/** The answer to one `/v1/embeddings` body, in OpenAI's shape; a 400 names what is wrong. */
export function answerEmbeddings(body: unknown, authorization: string | undefined): EmbeddingsAnswer {
  const request = body as { model?: unknown; input?: unknown } | null;
  const input = typeof request?.input === 'string' ? [request.input] : request?.input;
  if (!request || typeof request.model !== 'string' || !Array.isArray(input) || input.length === 0 || !input.every((item) => typeof item === 'string')) {
    return { status: 400, body: { error: { message: 'The request needs `model` (a string) and `input` (a string or a non-empty array of strings).', type: 'invalid_request_error' } } };
  }
  const texts = input as string[];
  return {
    status: 200,
    request: { model: request.model, input: texts, authorization },
    body: {
      object: 'list',
      model: request.model,
      data: texts.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
      usage: { prompt_tokens: texts.reduce((sum, text) => sum + embeddingFeatures(text).length, 0), total_tokens: texts.reduce((sum, text) => sum + embeddingFeatures(text).length, 0) },
    },
  };
}
