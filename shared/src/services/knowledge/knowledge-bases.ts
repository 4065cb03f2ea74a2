import { and, arrayOverlaps, asc, desc, eq, getTableColumns, inArray, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/client';
import { knowledgeBases, knowledgeFiles, userGroupMembers, users } from '../../db/schema';
import { newId } from '../../ids';
import { webPageUrlSchema } from '../../tools/fetch/fetch-web-page';
import { cleanFileName, judgeUpload } from '../chat-files/judge-upload';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../errors';
import { checkGroupIds, groupIdsSchema } from '../groups/groups';

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

/** PATCH /api/knowledge/:id: any subset; `shared` and `groupIds` are an admin's (403 for others). */
export const updateKnowledgeBaseInputSchema = createKnowledgeBaseInputSchema
  .partial()
  .extend({
    description: z.string().trim().max(2000).optional(),
    /** Admins only: let other users read it. */
    shared: z.boolean().optional(),
    /** Whom a shared base is for; empty is everyone. */
    groupIds: groupIdsSchema.optional(),
  });
export type UpdateKnowledgeBaseInput = z.input<typeof updateKnowledgeBaseInputSchema>;

/**
 * Who acts on knowledge bases: their own are theirs to change; only admins share; their groups decide
 * which shared bases they read (an admin reads every shared one, none that is not shared).
 */
export type KnowledgeActor = { userId: string; isAdmin: boolean; groupIds: readonly string[] };

/** A base with how many files it has and how many are ready. */
export type KnowledgeBaseSummary = KnowledgeBase & { fileCount: number; chunkCount: number };

/** A base as one user sees it: theirs (`owned`), or shared with them by `sharedBy` (its owner's name), read-only. */
export type ReadableKnowledgeBase = KnowledgeBase & { owned: boolean; sharedBy: string | null };
export type ListedKnowledgeBase = KnowledgeBaseSummary & { owned: boolean; sharedBy: string | null };

/**
 * The shared bases `actor` may read, as a condition over `knowledge_bases` joined with its owner in
 * `users`: shared while the owner is an admin (a demoted owner's bases stop being offered, as prompts
 * do), with everyone or a group of theirs; any shared one for an admin.
 */
function sharedWith(actor: Pick<KnowledgeActor, 'isAdmin' | 'groupIds'>): SQL {
  return and(
    eq(knowledgeBases.shared, true),
    eq(users.role, 'admin'),
    actor.isAdmin ? undefined : or(sql`cardinality(${knowledgeBases.groupIds}) = 0`, actor.groupIds.length > 0 ? arrayOverlaps(knowledgeBases.groupIds, [...actor.groupIds]) : undefined),
  )!;
}

/** Which groups a base is shared with is the admins' business: a reader sees that it is shared, not with whom. */
function asSeenBy<T extends KnowledgeBase>(base: T, ownerName: string, actor: KnowledgeActor): T & { owned: boolean; sharedBy: string | null } {
  const owned = base.userId === actor.userId;
  return { ...base, groupIds: owned || actor.isAdmin ? base.groupIds : [], owned, sharedBy: owned ? null : ownerName };
}

/** The user's bases and those shared with them, newest first, with file and chunk counts. */
export async function listKnowledgeBases(db: Database, actor: KnowledgeActor): Promise<ListedKnowledgeBase[]> {
  const rows = await db
    .select({
      base: getTableColumns(knowledgeBases),
      ownerName: users.name,
      fileCount: sql<number>`count(${knowledgeFiles.id})::int`,
      chunkCount: sql<number>`coalesce(sum(${knowledgeFiles.chunkCount}), 0)::int`,
    })
    .from(knowledgeBases)
    .innerJoin(users, eq(users.id, knowledgeBases.userId))
    .leftJoin(knowledgeFiles, eq(knowledgeFiles.baseId, knowledgeBases.id))
    .where(or(eq(knowledgeBases.userId, actor.userId), sharedWith(actor)))
    .groupBy(knowledgeBases.id, users.name)
    .orderBy(desc(knowledgeBases.createdAt), desc(knowledgeBases.id));
  return rows.map((row) => asSeenBy({ ...row.base, fileCount: row.fileCount, chunkCount: row.chunkCount }, row.ownerName, actor));
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

/** A base the user may read: theirs or shared with them. @throws {NotFoundError} for any other, shared elsewhere or not */
export async function readableKnowledgeBase(db: Database, actor: KnowledgeActor, id: string): Promise<ReadableKnowledgeBase> {
  const [row] = await db
    .select({ base: knowledgeBases, ownerName: users.name })
    .from(knowledgeBases)
    .innerJoin(users, eq(users.id, knowledgeBases.userId))
    .where(and(eq(knowledgeBases.id, id), or(eq(knowledgeBases.userId, actor.userId), sharedWith(actor))));
  if (!row) throw new NotFoundError('Knowledge base', id);
  return asSeenBy(row.base, row.ownerName, actor);
}

const readOnly = (base: ReadableKnowledgeBase) => new ForbiddenError(`'${base.name}' is shared with you by ${base.sharedBy}: only its owner can change it`);

/**
 * A base the user may change (add or remove files, rename, re-index, delete): only their own.
 * @throws {ForbiddenError} for a base shared with them (they can see it exists); {NotFoundError} for any other
 */
export async function ownedKnowledgeBase(db: Database, actor: KnowledgeActor, id: string): Promise<ReadableKnowledgeBase> {
  const base = await readableKnowledgeBase(db, actor, id);
  if (!base.owned) throw readOnly(base);
  return base;
}

/**
 * Renames a base or changes its description (its owner), or shares it, changes with whom, or stops
 * sharing it (admins: their own base, or any shared one). Answers it with how it was before, so a change
 * of sharing can be audited.
 * @throws {ForbiddenError} a non-admin sharing, or a reader renaming; {NotFoundError}; {InvalidInputError} an unknown group
 */
export async function updateKnowledgeBase(db: Database, actor: KnowledgeActor, id: string, input: UpdateKnowledgeBaseInput): Promise<{ base: KnowledgeBase; previous: KnowledgeBase }> {
  const changes = updateKnowledgeBaseInputSchema.parse(input);
  // A user may keep a base to themselves (shared false), never offer it.
  if (!actor.isAdmin && (changes.shared === true || (changes.groupIds?.length ?? 0) > 0)) throw new ForbiddenError('Only admins can share knowledge bases with other users');
  const base = await readableKnowledgeBase(db, actor, id);
  if (!base.owned && (changes.name !== undefined || changes.description !== undefined || !actor.isAdmin)) throw readOnly(base);
  await checkGroupIds(db, changes.groupIds);
  return db.transaction(async (tx) => {
    const [previous] = await tx.select().from(knowledgeBases).where(eq(knowledgeBases.id, base.id)).for('update');
    if (!previous) throw new NotFoundError('Knowledge base', id);
    if (Object.keys(changes).length === 0) return { base: previous, previous };
    const [row] = await tx.update(knowledgeBases).set(changes).where(eq(knowledgeBases.id, base.id)).returning();
    return { base: row!, previous };
  });
}

/** Deletes the user's base with its files and chunks (cascade); answers it (was it shared?). @throws as ownedKnowledgeBase */
export async function deleteKnowledgeBase(db: Database, actor: KnowledgeActor, id: string): Promise<KnowledgeBase> {
  await ownedKnowledgeBase(db, actor, id);
  const [deleted] = await db.delete(knowledgeBases).where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.userId, actor.userId))).returning();
  if (!deleted) throw new NotFoundError('Knowledge base', id);
  return deleted;
}

/**
 * The bases a `knowledge` tool set to search the asking user's bases reads for `userId`: those shared
 * with them and, with `own`, their own. One statement on the owner and shared-base indexes, read on
 * every search, so a base unshared (or a user taken out of its group) is not searched from the next
 * search on, in every process.
 */
export async function userReadableKnowledgeBaseIds(db: Database, userId: string, options: { own: boolean }): Promise<string[]> {
  const theirGroups = sql`array(select ${userGroupMembers.groupId} from ${userGroupMembers} where ${userGroupMembers.userId} = ${userId})`;
  const rows = await db
    .select({ id: knowledgeBases.id })
    .from(knowledgeBases)
    .innerJoin(users, eq(users.id, knowledgeBases.userId))
    .where(
      or(
        options.own ? eq(knowledgeBases.userId, userId) : undefined,
        and(eq(knowledgeBases.shared, true), eq(users.role, 'admin'), or(sql`cardinality(${knowledgeBases.groupIds}) = 0`, sql`${knowledgeBases.groupIds} && ${theirGroups}`)),
      ),
    )
    .orderBy(asc(knowledgeBases.createdAt), asc(knowledgeBases.id));
  return rows.map((row) => row.id);
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

/** Knowledge bases a chat message may name (POST /api/sessions/:id/runs `knowledgeBaseIds`). */
export const MAX_CHOSEN_KNOWLEDGE_BASES = 5;

/** A base chosen for a question, as the question shows it. */
export type ChosenKnowledgeBase = { id: string; name: string };

/**
 * Which of `ids` `userId` may read (their own, or shared with them as listKnowledgeBases shares:
 * with everyone, a group of theirs, or any shared one for an admin), with their names, in the order
 * asked. One statement: the user's role and groups are read inside it, so the API (on a send that
 * names bases) and the worker (re-checking a run's chosen bases) ask the same question the same way.
 */
export async function readableKnowledgeBasesAmong(db: Database, userId: string, ids: readonly string[]): Promise<ChosenKnowledgeBase[]> {
  if (ids.length === 0) return [];
  const theirGroups = sql`array(select ${userGroupMembers.groupId} from ${userGroupMembers} where ${userGroupMembers.userId} = ${userId})`;
  const askerIsAdmin = sql`exists (select 1 from ${users} asker where asker.id = ${userId} and asker.role = 'admin')`;
  const rows = await db
    .select({ id: knowledgeBases.id, name: knowledgeBases.name })
    .from(knowledgeBases)
    .innerJoin(users, eq(users.id, knowledgeBases.userId))
    .where(
      and(
        inArray(knowledgeBases.id, [...ids]),
        or(
          eq(knowledgeBases.userId, userId),
          and(eq(knowledgeBases.shared, true), eq(users.role, 'admin'), or(sql`cardinality(${knowledgeBases.groupIds}) = 0`, sql`${knowledgeBases.groupIds} && ${theirGroups}`, askerIsAdmin)),
        ),
      ),
    );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
