import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { executeRows, type Database, type DbHandle } from '../../db/client';
import { knowledgeChunks, knowledgeFiles, users } from '../../db/schema';
import { newId } from '../../ids';
import { bothTestDatabases } from '../../testing';
import { acceptKnowledgeUpload, createKnowledgeBase, deleteKnowledgeFile } from './knowledge-bases';
import { clearVectorCache, decodeVector, encodeVector, vectorRanking } from './vector-ranking';

/** A random unit vector of `dims` dimensions. */
function unitVector(dims: number): number[] {
  const values = Array.from({ length: dims }, () => Math.random() - 0.5);
  const length = Math.hypot(...values);
  return values.map((value) => value / length);
}

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, index) => sum + Math.fround(value) * Math.fround(b[index]!), 0);

describe.each(bothTestDatabases)('vector ranking (%s)', (_name, open) => {
  let database: DbHandle | undefined;
  afterEach(async () => {
    clearVectorCache();
    await database?.close();
    database = undefined;
  });

  /** A base with one file whose chunks carry `vectors` (null: not embedded); answers the chunk ids in order. */
  async function baseWith(db: DbHandle['db'], vectors: (number[] | null)[]) {
    const userId = newId('user');
    await db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'vectors', role: 'user', passwordHash: 'x' });
    const base = await createKnowledgeBase(db, userId, { name: 'Vectors' });
    const ids = await addChunks(db, base.id, vectors);
    return { base, ids };
  }

  async function addChunks(db: DbHandle['db'], baseId: string, vectors: (number[] | null)[]) {
    const upload = await acceptKnowledgeUpload(db, baseId, { name: 'v.txt', data: new TextEncoder().encode('vectors') });
    if (!upload.ok) throw new Error(upload.message);
    const rows = await db
      .insert(knowledgeChunks)
      .values(vectors.map((vector, position) => ({ fileId: upload.file.id, baseId, position, text: `chunk ${position}`, vector: vector ? encodeVector(vector) : null })))
      .returning({ id: knowledgeChunks.id });
    return { fileId: upload.file.id, ids: rows.map((row) => row.id) };
  }

  it('ranks by dot product, best first, ties by id, skipping chunks without a vector or of another dimension count', async () => {
    database = await open();
    const db = database.db;
    const vectors = Array.from({ length: 80 }, () => unitVector(16));
    // A tie: the same vector twice, so the lower id must come first.
    vectors[41] = vectors[40]!;
    const { base, ids } = await baseWith(db, [...vectors, null, unitVector(8)]);
    const query = unitVector(16);
    const expected = ids.ids
      .slice(0, 80)
      .map((id, index) => ({ id, score: dot(vectors[index]!, query) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((entry) => entry.id);
    expect(await vectorRanking(db, [base.id], query, 50)).toEqual(expected.slice(0, 50));
    // Cached now: the same answer, and a query of 8 dimensions finds only the 8-dimension chunk.
    expect(await vectorRanking(db, [base.id], query, 50)).toEqual(expected.slice(0, 50));
    expect(await vectorRanking(db, [base.id], unitVector(8), 50)).toEqual([ids.ids[81]]);
    expect(await vectorRanking(db, [base.id], unitVector(4), 50)).toEqual([]);
  });

  it('sees chunks added and files deleted after a base was cached, as another process would change them', async () => {
    database = await open();
    const db = database.db;
    const query = unitVector(12);
    const { base, ids: first } = await baseWith(db, [unitVector(12), unitVector(12)]);
    expect(new Set(await vectorRanking(db, [base.id], query, 10))).toEqual(new Set(first.ids));

    // The query's own direction: the best match from now on.
    const added = await addChunks(db, base.id, [query]);
    expect((await vectorRanking(db, [base.id], query, 10))[0]).toBe(added.ids[0]);

    await deleteKnowledgeFile(db, base.id, first.fileId);
    expect(await vectorRanking(db, [base.id], query, 10)).toEqual(added.ids);
    await deleteKnowledgeFile(db, base.id, added.fileId);
    expect(await vectorRanking(db, [base.id], query, 10)).toEqual([]);
  });

  it('reads only the bases it is given', async () => {
    database = await open();
    const db = database.db;
    const query = unitVector(6);
    const mine = await baseWith(db, [unitVector(6)]);
    const theirs = await baseWith(db, [query]);
    expect(await vectorRanking(db, [mine.base.id], query, 10)).toEqual(mine.ids.ids);
    expect(await vectorRanking(db, [mine.base.id, theirs.base.id], query, 10)).toEqual([theirs.ids.ids[0], mine.ids.ids[0]]);
  });

  it("migration 0032 turns a stored real[] embedding into the vector column's floats", async () => {
    database = await open();
    const update = readFileSync(new URL('../../../drizzle/0032_knowledge_chunk_vectors.sql', import.meta.url), 'utf8')
      .split('--> statement-breakpoint')
      .map((statement) => statement.trim())
      .find((statement) => /^(--.*\n)*UPDATE/i.test(statement))!;
    const embedding = [0.5, -0.25, 1e-3, 0.125, -1];
    const [row] = await database.db.transaction(async (tx) => {
      // A temporary table of the old shape shadows the real one for this connection.
      await tx.execute(sql`create temporary table knowledge_chunks (embedding real[], vector bytea) on commit drop`);
      await tx.execute(sql`insert into knowledge_chunks (embedding) values (${`{${embedding.join(',')}}`}::real[]), (null)`);
      await tx.execute(sql.raw(update));
      return executeRows<{ vector: string | null }>(tx as unknown as Database, sql`select encode(vector, 'base64') as vector from pg_temp.knowledge_chunks order by embedding nulls last`);
    });
    expect([...decodeVector(Buffer.from(row!.vector!, 'base64'))]).toEqual(embedding.map((value) => Math.fround(value)));
  });
});
