import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/client';
import { knowledgeBases, knowledgeFiles } from '../../db/schema';
import { newId } from '../../ids';
import { webPageUrlSchema } from '../../tools/fetch/fetch-web-page';
import { cleanFileName, judgeUpload } from '../chat-files/judge-upload';
import { InvalidInputError, NotFoundError } from '../errors';

export type KnowledgeBase = typeof knowledgeBases.$inferSelect;

const { data: _data, ...fileColumns } = getTableColumns(knowledgeFiles);
/** A file as routes show it: everything but its bytes. */
export type KnowledgeFile = Omit<typeof knowledgeFiles.$inferSelect, 'data'>;

/** POST /api/knowledge. */
export const createKnowledgeBaseInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(2000).default(''),
});
export type CreateKnowledgeBaseInput = z.input<typeof createKnowledgeBaseInputSchema>;

/** PATCH /api/knowledge/:id: any subset. */
export const updateKnowledgeBaseInputSchema = createKnowledgeBaseInputSchema.partial().extend({ description: z.string().trim().max(2000).optional() });
export type UpdateKnowledgeBaseInput = z.input<typeof updateKnowledgeBaseInputSchema>;

/** A base with how many files it has and how many are ready. */
export type KnowledgeBaseSummary = KnowledgeBase & { fileCount: number; chunkCount: number };

/** The user's bases, newest first, with file and chunk counts. */
export async function listKnowledgeBases(db: Database, userId: string): Promise<KnowledgeBaseSummary[]> {
  return db
    .select({
      ...getTableColumns(knowledgeBases),
      fileCount: sql<number>`count(${knowledgeFiles.id})::int`,
      chunkCount: sql<number>`coalesce(sum(${knowledgeFiles.chunkCount}), 0)::int`,
    })
    .from(knowledgeBases)
    .leftJoin(knowledgeFiles, eq(knowledgeFiles.baseId, knowledgeBases.id))
    .where(eq(knowledgeBases.userId, userId))
    .groupBy(knowledgeBases.id)
    .orderBy(desc(knowledgeBases.createdAt), desc(knowledgeBases.id));
}

export async function createKnowledgeBase(db: Database, userId: string, input: CreateKnowledgeBaseInput): Promise<KnowledgeBase> {
  const fields = createKnowledgeBaseInputSchema.parse(input);
  const [row] = await db.insert(knowledgeBases).values({ id: newId('knowledgeBase'), userId, ...fields }).returning();
  return row!;
}

/** The user's base; NotFoundError for another user's, so its existence is not revealed. */
export async function getKnowledgeBase(db: Database, userId: string, id: string): Promise<KnowledgeBase> {
  const [row] = await db.select().from(knowledgeBases).where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.userId, userId)));
  if (!row) throw new NotFoundError('Knowledge base', id);
  return row;
}

export async function updateKnowledgeBase(db: Database, userId: string, id: string, input: UpdateKnowledgeBaseInput): Promise<KnowledgeBase> {
  const changes = updateKnowledgeBaseInputSchema.parse(input);
  if (Object.keys(changes).length === 0) return getKnowledgeBase(db, userId, id);
  const [row] = await db.update(knowledgeBases).set(changes).where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.userId, userId))).returning();
  if (!row) throw new NotFoundError('Knowledge base', id);
  return row;
}

/** Deletes the base with its files and chunks (cascade). */
export async function deleteKnowledgeBase(db: Database, userId: string, id: string): Promise<void> {
  const deleted = await db.delete(knowledgeBases).where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.userId, userId))).returning({ id: knowledgeBases.id });
  if (deleted.length === 0) throw new NotFoundError('Knowledge base', id);
}

/** The files of a base the caller already holds, oldest first, without bytes. */
export async function listKnowledgeFiles(db: Database, baseId: string): Promise<KnowledgeFile[]> {
  return db.select(fileColumns).from(knowledgeFiles).where(eq(knowledgeFiles.baseId, baseId)).orderBy(asc(knowledgeFiles.createdAt), asc(knowledgeFiles.id));
}

export type KnowledgeUploadOutcome = { ok: true; file: KnowledgeFile } | { ok: false; status: 413 | 415; message: string };

/**
 * Stores an uploaded file as `processing`; the caller enqueues its ingestion. The type is judged from
 * the bytes with the chat attachments' rules and limits (a PDF up to 10 MiB, UTF-8 text up to 512 KiB);
 * images are refused: there is no text to retrieve in them.
 */
export async function acceptKnowledgeUpload(db: Database, baseId: string, upload: { name: string; data: Uint8Array }): Promise<KnowledgeUploadOutcome> {
  const verdict = judgeUpload(upload.data, upload.name);
  if (!verdict.ok) return verdict.status === 413 ? verdict : { ok: false, status: 415, message: upload.data.length === 0 ? verdict.message : KNOWLEDGE_TYPES_MESSAGE };
  if (verdict.mediaType.startsWith('image/')) return { ok: false, status: 415, message: KNOWLEDGE_TYPES_MESSAGE };
  const data = Buffer.from(upload.data.buffer, upload.data.byteOffset, upload.data.byteLength);
  const [row] = await db
    .insert(knowledgeFiles)
    .values({ id: newId('knowledgeFile'), baseId, name: cleanFileName(upload.name), mediaType: verdict.mediaType, size: data.length, data })
    .returning(fileColumns);
  await db.update(knowledgeBases).set({ updatedAt: new Date() }).where(eq(knowledgeBases.id, baseId));
  return { ok: true, file: row! };
}

/** Pages one "Add web page" may name. */
export const MAX_PAGES_PER_ADD = 10;

/** POST /api/knowledge/:id/pages: http(s) URLs, one file each. */
export const addKnowledgePagesInputSchema = z.object({
  urls: z
    .array(webPageUrlSchema)
    .min(1)
    .max(MAX_PAGES_PER_ADD),
});
export type AddKnowledgePagesInput = z.input<typeof addKnowledgePagesInputSchema>;

/**
 * Stores one `processing` file per web page, named by its URL until the worker fetches it (then by the
 * page's title) and keeping the URL as `sourceUrl`; the caller enqueues their ingestion. Duplicates in
 * one request are added once.
 */
export async function addKnowledgePages(db: Database, baseId: string, input: AddKnowledgePagesInput): Promise<KnowledgeFile[]> {
  const { urls } = addKnowledgePagesInputSchema.parse(input);
  const unique = [...new Set(urls.map((url) => new URL(url).href))];
  // A millisecond apart, so the base lists them in the order given.
  const now = Date.now();
  const rows = await db
    .insert(knowledgeFiles)
    .values(unique.map((url, index) => ({ id: newId('knowledgeFile'), baseId, createdAt: new Date(now + index), updatedAt: new Date(now + index), name: cleanFileName(url.replace(/^https?:\/\//, '').replace(/\/+$/, '').replaceAll('/', ' › ')), mediaType: 'text/markdown', size: 0, data: Buffer.alloc(0), sourceUrl: url })))
    .returning(fileColumns);
  await db.update(knowledgeBases).set({ updatedAt: new Date() }).where(eq(knowledgeBases.id, baseId));
  return rows;
}

/**
 * Marks a web page's file `processing` again so its job fetches the page anew; NotFoundError when the
 * base has no such file, InvalidInputError for an uploaded file (there is nothing to fetch).
 */
export async function markKnowledgePageForRefetch(db: Database, baseId: string, fileId: string): Promise<{ restore: () => Promise<void> }> {
  const [file] = await db.select({ sourceUrl: knowledgeFiles.sourceUrl, status: knowledgeFiles.status, error: knowledgeFiles.error }).from(knowledgeFiles).where(and(eq(knowledgeFiles.id, fileId), eq(knowledgeFiles.baseId, baseId)));
  if (!file) throw new NotFoundError('File', fileId);
  if (!file.sourceUrl) throw new InvalidInputError('Only a web page can be fetched again; upload the file again instead');
  await db.update(knowledgeFiles).set({ status: 'processing', error: null }).where(eq(knowledgeFiles.id, fileId));
  return { restore: () => db.update(knowledgeFiles).set({ status: file.status, error: file.error }).where(and(eq(knowledgeFiles.id, fileId), eq(knowledgeFiles.status, 'processing'))).then(() => {}) };
}

const KNOWLEDGE_TYPES_MESSAGE = 'Only PDF files and UTF-8 text files (text, Markdown, CSV, code) can be added to a knowledge base';

/** Removes a file and its chunks; NotFoundError when the base has no such file. */
export async function deleteKnowledgeFile(db: Database, baseId: string, fileId: string): Promise<void> {
  const deleted = await db.delete(knowledgeFiles).where(and(eq(knowledgeFiles.id, fileId), eq(knowledgeFiles.baseId, baseId))).returning({ id: knowledgeFiles.id });
  if (deleted.length === 0) throw new NotFoundError('File', fileId);
}

/** Which of `ids` are bases `userId` owns (what a tool's creator may attach). */
export async function ownedKnowledgeBaseIds(db: Database, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: knowledgeBases.id })
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.userId, userId), inArray(knowledgeBases.id, [...ids])));
  return new Set(rows.map((row) => row.id));
}
