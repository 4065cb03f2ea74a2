import { and, asc, count, eq, gt, inArray, isNotNull, max, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { knowledgeChunks } from '../../db/schema';

/**
 * Vector ranking in the searching process rather than in SQL. PostgreSQL without pgvector can only
 * score an array by unnesting every row (0.7–1.2 s for 5,000 passages of 1,536 dimensions); here each
 * base's embedded chunks are read once into one Float32Array per dimension count and scored with a
 * plain dot product (~20 ms for the same 5,000). A base's cached copy is checked against its chunk
 * count and highest chunk id on every search (one index scan): chunks are only ever inserted and
 * deleted, never updated, so that pair changes whenever what a search must read does, in any
 * process (an ingestion in a worker, a file deleted through the API).
 */

/** Embedded chunks of one dimension count: ids[i]'s vector is vectors[i * dims … (i + 1) * dims). */
type VectorSet = { ids: Int32Array; vectors: Float32Array };
type BaseVectors = { stamp: string; floats: number; byDims: Map<number, VectorSet> };

/** What one process keeps at most (floats across every cached base): 128 MiB. */
export const VECTOR_CACHE_FLOATS = 32 * 1024 * 1024;
/** Rows per read while loading a base: bounds the driver's buffers, not the cache. */
const LOAD_BATCH = 500;

/** Cached bases, least recently searched first (a Map keeps insertion order). */
const cache = new Map<string, BaseVectors>();
/** Loads under way, so concurrent searches of a cold base read it once. */
const loading = new Map<string, Promise<BaseVectors>>();

/** Drops every cached base (tests; a process that wants its memory back). */
export function clearVectorCache(): void {
  cache.clear();
}

/** A unit vector as the `vector` column stores it: 4-byte big-endian floats. */
export function encodeVector(values: readonly number[]): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => bytes.writeFloatBE(Number.isFinite(value) ? value : 0, index * 4));
  return bytes;
}

/** The column's bytes back as floats (a trailing partial float, which no writer makes, is ignored). */
export function decodeVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(bytes.byteLength >> 2);
  for (let index = 0; index < values.length; index++) values[index] = view.getFloat32(index * 4);
  return values;
}

/** `count:maxId` of a base's chunks, per base (a base with none is absent). */
async function stampsOf(db: Database, baseIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db
    .select({ baseId: knowledgeChunks.baseId, chunks: count(), maxId: max(knowledgeChunks.id) })
    .from(knowledgeChunks)
    .where(inArray(knowledgeChunks.baseId, [...baseIds]))
    .groupBy(knowledgeChunks.baseId);
  return new Map(rows.map((row) => [row.baseId, `${row.chunks}:${row.maxId}`]));
}

/** Reads a base's embedded chunks in id order, `LOAD_BATCH` rows a statement, grouped by dimension count. */
async function loadBase(db: Database, baseId: string, stamp: string): Promise<BaseVectors> {
  const groups = new Map<number, { ids: number[]; vectors: Float32Array[] }>();
  let after = 0;
  for (;;) {
    // Encoded outside the ordered, limited scan: a sort computes its rows' select list before it
    // limits them, which encoded every remaining row of the base on each batch.
    const batch = db
      .select({ id: knowledgeChunks.id, vector: knowledgeChunks.vector })
      .from(knowledgeChunks)
      .where(and(eq(knowledgeChunks.baseId, baseId), isNotNull(knowledgeChunks.vector), gt(knowledgeChunks.id, after)))
      .orderBy(asc(knowledgeChunks.id))
      .limit(LOAD_BATCH)
      .as('batch');
    // As base64 text: bytea's hex text is half again as long, and PGlite's binary bytea is slower still.
    const rows = await db
      .select({ id: batch.id, vector: sql<string>`encode(${batch.vector}, 'base64')` })
      .from(batch)
      .orderBy(asc(batch.id));
    for (const row of rows) {
      const vector = decodeVector(Buffer.from(row.vector, 'base64'));
      if (vector.length === 0) continue;
      const group = groups.get(vector.length) ?? { ids: [], vectors: [] };
      group.ids.push(row.id);
      group.vectors.push(vector);
      groups.set(vector.length, group);
    }
    if (rows.length < LOAD_BATCH) break;
    after = rows[rows.length - 1]!.id;
  }
  const byDims = new Map<number, VectorSet>();
  let floats = 0;
  for (const [dims, group] of groups) {
    const vectors = new Float32Array(group.ids.length * dims);
    group.vectors.forEach((vector, index) => vectors.set(vector, index * dims));
    byDims.set(dims, { ids: Int32Array.from(group.ids), vectors });
    floats += vectors.length;
  }
  return { stamp, floats, byDims };
}

/** Keeps `base` cached when it fits, evicting the least recently searched bases first. */
function remember(baseId: string, base: BaseVectors): void {
  cache.delete(baseId);
  if (base.floats > VECTOR_CACHE_FLOATS) return;
  let total = base.floats;
  for (const cached of cache.values()) total += cached.floats;
  for (const [id, cached] of cache) {
    if (total <= VECTOR_CACHE_FLOATS) break;
    cache.delete(id);
    total -= cached.floats;
  }
  cache.set(baseId, base);
}

async function vectorsOf(db: Database, baseId: string, stamp: string): Promise<BaseVectors> {
  const cached = cache.get(baseId);
  if (cached?.stamp === stamp) {
    // Most recently searched last.
    cache.delete(baseId);
    cache.set(baseId, cached);
    return cached;
  }
  const key = `${baseId}\u0000${stamp}`;
  let pending = loading.get(key);
  if (!pending) {
    pending = loadBase(db, baseId, stamp).finally(() => loading.delete(key));
    loading.set(key, pending);
  }
  const base = await pending;
  remember(baseId, base);
  return base;
}

/** Inserts (id, score) into `top`, kept best first (ties: lower id first, as the SQL ranking did), at most `limit` long. */
function keepBest(top: { id: number; score: number }[], id: number, score: number, limit: number): void {
  if (top.length === limit) {
    const last = top[limit - 1]!;
    if (score < last.score || (score === last.score && id > last.id)) return;
    top.pop();
  }
  let index = top.length;
  while (index > 0 && (top[index - 1]!.score < score || (top[index - 1]!.score === score && top[index - 1]!.id > id))) index--;
  top.splice(index, 0, { id, score });
}

/**
 * Chunk ids of `baseIds` by cosine similarity to `vector` (chunks and query are unit length, so the
 * dot product), best first, at most `limit`. Chunks embedded with another dimension count (a model
 * changed since) are skipped.
 */
export async function vectorRanking(db: Database, baseIds: readonly string[], vector: readonly number[], limit: number): Promise<number[]> {
  const stamps = await stampsOf(db, baseIds);
  // A base with no chunks left (emptied or deleted) gives its memory back.
  for (const baseId of baseIds) if (!stamps.has(baseId)) cache.delete(baseId);
  const query = Float32Array.from(vector, (value) => (Number.isFinite(value) ? value : 0));
  const dims = query.length;
  const top: { id: number; score: number }[] = [];
  const bases = await Promise.all([...stamps].map(([baseId, stamp]) => vectorsOf(db, baseId, stamp)));
  for (const base of bases) {
    const set = base.byDims.get(dims);
    if (!set) continue;
    const { ids, vectors } = set;
    for (let row = 0, offset = 0; row < ids.length; row++, offset += dims) {
      let score = 0;
      for (let index = 0; index < dims; index++) score += vectors[offset + index]! * query[index]!;
      keepBest(top, ids[row]!, score, limit);
    }
  }
  return top.map((entry) => entry.id);
}
