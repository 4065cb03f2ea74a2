import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { agentDocumentRevisions, agentDocuments, DOCUMENT_SEARCH_CONFIG, DOCUMENT_TYPES, type DocumentType } from '../db/schema';
import { newId } from '../ids';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import { cjkTerms, highlightSnippet, substringRank } from './cjk-search';
import { containsAllTerms } from './text-search';

/**
 * Agent documents (seed 003): one service for the `document` tool and the REST API. Every function
 * takes the acting user first and every query is scoped to that user inside this file, so no caller
 * can forget isolation; another user's document is indistinguishable from a missing one.
 */

/** A document as services return it (the generated search vector is never read). */
export type AgentDocument = Omit<typeof agentDocuments.$inferSelect, 'searchVector'>;
export type DocumentRevision = typeof agentDocumentRevisions.$inferSelect;
/** A document without its content, for lists. */
export type DocumentListItem = Omit<AgentDocument, 'content' | 'userId' | 'sessionId'>;
/** A ranked full-text hit: a list item plus its `ts_rank` and a short `ts_headline` snippet of the content. */
export type DocumentSearchHit = DocumentListItem & { rank: number; snippet: string };

/**
 * Who acts: the owner always; the run and chat session only when the `document` tool acts
 * (the session is stored on documents it creates; the API never passes one).
 */
export type DocumentActor = { userId: string; runId?: string | null; sessionId?: string | null };

/** Limits the caller enforces; the tool takes them from its instance config, the API uses the defaults. */
export type DocumentLimits = { maxContentLength: number; defaultSummaryLength: number };
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { maxContentLength: 50_000, defaultSummaryLength: 200 };

export const MAX_TAGS_LENGTH = 500;
export const MAX_SUMMARY_LENGTH = 2_000;

/** Another user's document or a missing one: the same answer, so existence is never revealed. */
export class DocumentNotFoundError extends NotFoundError {
  override name = 'DocumentNotFoundError';
  constructor(id: string) {
    super('Document', id);
    this.message = `Document ${id} not found or no access`;
  }
}

export class DocumentRevisionNotFoundError extends NotFoundError {
  override name = 'DocumentRevisionNotFoundError';
  constructor(id: string, readonly version: number, readonly currentVersion: number) {
    super('Document revision', id);
    this.message = `Document ${id} has no version ${version} (its versions are 1 to ${currentVersion})`;
  }
}

/** `expectedVersion` did not match: someone changed the document since the caller read it. */
export class DocumentVersionConflictError extends ConflictError {
  override name = 'DocumentVersionConflictError';
  constructor(id: string, readonly expectedVersion: number, readonly currentVersion: number) {
    super(
      `Document ${id} has changed: it is at version ${currentVersion}, not the expected version ${expectedVersion}. Read it again and reapply your change.`,
      { id, expectedVersion, currentVersion },
    );
  }
}

const titleSchema = z.string().trim().min(1, 'The title must not be empty').max(255, 'The title is at most 255 characters');
const summarySchema = z.string().trim().max(MAX_SUMMARY_LENGTH, `The summary is at most ${MAX_SUMMARY_LENGTH} characters`);
/** Comma-separated (as stored) or a list; normalized to "a, b, c". */
const tagsSchema = z.union([z.string().max(MAX_TAGS_LENGTH), z.array(z.string().trim().min(1).max(100)).max(50)]);
const versionSchema = z.number().int().min(1);

/** POST /api/agent-documents and the tool's `create`. No `sessionId`: only the tool sets it, from its run. */
export const createDocumentInputSchema = z.object({
  type: z.enum(DOCUMENT_TYPES).default('document'),
  title: titleSchema,
  content: z.string(),
  /** Omitted or null: the first `defaultSummaryLength` characters of the content. */
  summary: summarySchema.nullish(),
  tags: tagsSchema.nullish(),
});
export type CreateDocumentInput = z.input<typeof createDocumentInputSchema>;

/** PUT /api/agent-documents/:id and the tool's `update`: any subset; `expectedVersion` makes it conditional. */
export const updateDocumentInputSchema = z.object({
  title: titleSchema.optional(),
  content: z.string().optional(),
  /** A string sets it; null re-derives it from the content; omitted keeps it unless the content changes. */
  summary: summarySchema.nullish(),
  /** null clears the tags. */
  tags: tagsSchema.nullish(),
  expectedVersion: versionSchema.optional(),
});
export type UpdateDocumentInput = z.input<typeof updateDocumentInputSchema>;

export const listDocumentsQuerySchema = z.object({
  type: z.enum(DOCUMENT_TYPES).optional(),
  /** Full-text filter (web-search syntax: words, "quoted phrases", -excluded, or). */
  q: z.string().trim().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListDocumentsQuery = z.input<typeof listDocumentsQuerySchema>;

export const searchDocumentsQuerySchema = listDocumentsQuerySchema.extend({ q: z.string().trim().min(1, 'Give the words to search for').max(500) });
export type SearchDocumentsQuery = z.input<typeof searchDocumentsQuerySchema>;

export type DocumentPage<Item> = { items: Item[]; total: number; nextOffset: number | null };

const documentColumns = {
  id: agentDocuments.id,
  userId: agentDocuments.userId,
  sessionId: agentDocuments.sessionId,
  type: agentDocuments.type,
  title: agentDocuments.title,
  content: agentDocuments.content,
  summary: agentDocuments.summary,
  tags: agentDocuments.tags,
  version: agentDocuments.version,
  createdAt: agentDocuments.createdAt,
  updatedAt: agentDocuments.updatedAt,
};

const listColumns = {
  id: agentDocuments.id,
  type: agentDocuments.type,
  title: agentDocuments.title,
  summary: agentDocuments.summary,
  tags: agentDocuments.tags,
  version: agentDocuments.version,
  createdAt: agentDocuments.createdAt,
  updatedAt: agentDocuments.updatedAt,
};

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
    throw new InvalidInputError(issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; '), issues);
  }
  return parsed.data;
}

/** The isolation boundary: the owner's id, checked to be present, for every WHERE in this file. */
function ownerOf(actor: DocumentActor): string {
  if (typeof actor?.userId !== 'string' || actor.userId.length === 0) throw new Error('Document access needs the acting user id');
  return actor.userId;
}

const ownedBy = (actor: DocumentActor, id: string) => and(eq(agentDocuments.id, id), eq(agentDocuments.userId, ownerOf(actor)));

/**
 * The default summary: the content's first `length` characters on one line (heading marks and
 * whitespace runs collapsed), ending in "…" when cut.
 */
export function summarizeContent(content: string, length: number): string {
  const flat = content.replace(/^#{1,6}\s+/gm, '').replace(/\s+/g, ' ').trim();
  const characters = Array.from(flat);
  if (characters.length <= length) return flat;
  return `${characters.slice(0, Math.max(1, length - 1)).join('').trimEnd()}…`;
}

/** Tags as stored: trimmed, de-duplicated (case-insensitively), comma-separated; null when none. */
export function normalizeTags(tags: string | string[] | null | undefined): string | null {
  if (tags === null || tags === undefined) return null;
  const seen = new Set<string>();
  const list: string[] = [];
  for (const tag of (Array.isArray(tags) ? tags : tags.split(',')).map((entry) => entry.trim()).filter(Boolean)) {
    if (seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    list.push(tag);
  }
  const joined = list.join(', ');
  if (joined.length > MAX_TAGS_LENGTH) {
    throw new InvalidInputError(`Tags are ${joined.length} characters together; the maximum is ${MAX_TAGS_LENGTH}`, [{ path: ['tags'], message: 'too long' }]);
  }
  return joined || null;
}

function assertContentLength(content: string, limits: DocumentLimits): void {
  if (content.length > limits.maxContentLength) {
    throw new InvalidInputError(
      `Content exceeds the maximum length: it is ${content.length} characters, the limit is ${limits.maxContentLength}. Shorten it or split it into several documents.`,
      [{ path: ['content'], message: `at most ${limits.maxContentLength} characters` }],
    );
  }
}

async function writeRevision(tx: Transaction, actor: DocumentActor, document: AgentDocument): Promise<void> {
  await tx.insert(agentDocumentRevisions).values({
    id: newId('revision'),
    documentId: document.id,
    version: document.version,
    title: document.title,
    content: document.content,
    summary: document.summary,
    tags: document.tags,
    createdByUserId: actor.userId,
    createdByRunId: actor.runId ?? null,
  });
}

/**
 * Creates a document (version 1, with its first revision). The session is taken from the actor,
 * which only the document tool fills in.
 */
export async function createDocument(
  db: Database,
  actor: DocumentActor,
  input: CreateDocumentInput,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): Promise<AgentDocument> {
  const userId = ownerOf(actor);
  const parsed = parseInput(createDocumentInputSchema, input);
  assertContentLength(parsed.content, limits);
  return db.transaction(async (tx) => {
    const [created] = await tx
      .insert(agentDocuments)
      .values({
        id: newId('document'),
        userId,
        sessionId: actor.sessionId ?? null,
        type: parsed.type,
        title: parsed.title,
        content: parsed.content,
        summary: parsed.summary || summarizeContent(parsed.content, limits.defaultSummaryLength),
        tags: normalizeTags(parsed.tags),
      })
      .returning(documentColumns);
    await writeRevision(tx, actor, created!);
    return created!;
  });
}

/** The actor's document, or DocumentNotFoundError ("not found or no access"). */
export async function getDocument(db: Database, actor: DocumentActor, id: string): Promise<AgentDocument> {
  const [document] = await db.select(documentColumns).from(agentDocuments).where(ownedBy(actor, id));
  if (!document) throw new DocumentNotFoundError(id);
  return document;
}

const searchConfig = sql.raw(`'${DOCUMENT_SEARCH_CONFIG}'::regconfig`);
const toTsQuery = (q: string) => sql`websearch_to_tsquery(${searchConfig}, ${q})`;
/** Short snippets: up to two fragments of ~30 words, matches in **bold** (markdown, safe to render). */
const HEADLINE_OPTIONS = 'MaxWords=30, MinWords=10, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … ", StartSel=**, StopSel=**';

const searchColumns = {
  title: sql`${agentDocuments.title}`,
  tags: sql`coalesce(${agentDocuments.tags}, '')`,
  content: sql`${agentDocuments.content}`,
};
const allText = sql`${agentDocuments.title} || ' ' || coalesce(${agentDocuments.tags}, '') || ' ' || ${agentDocuments.content}`;

/** Full-text match, or for CJK terms (which the parser cannot split into words) a substring match of them all. */
function textMatch(q: string): SQL {
  const fullText = sql`${agentDocuments.searchVector} @@ ${toTsQuery(q)}`;
  const terms = cjkTerms(q);
  return terms.length ? sql`(${fullText} or (${containsAllTerms(allText, terms)}))` : fullText;
}

function filters(actor: DocumentActor, query: { type?: DocumentType; q?: string }): SQL {
  const conditions: SQL[] = [eq(agentDocuments.userId, ownerOf(actor))];
  if (query.type) conditions.push(eq(agentDocuments.type, query.type));
  if (query.q) conditions.push(textMatch(query.q));
  return and(...conditions)!;
}

async function countDocuments(db: Database, where: SQL): Promise<number> {
  const [row] = await db.select({ value: count() }).from(agentDocuments).where(where);
  return Number(row?.value ?? 0);
}

/**
 * The actor's documents without content, most recently updated first; `q` filters with full-text
 * search (stemmed: "meetings" finds "meeting"), `type` by memory/document. Offset-paginated.
 */
export async function listDocuments(db: Database, actor: DocumentActor, query: ListDocumentsQuery = {}): Promise<DocumentPage<DocumentListItem>> {
  const parsed = parseInput(listDocumentsQuerySchema, query);
  const where = filters(actor, { type: parsed.type, q: parsed.q || undefined });
  const items = await db
    .select(listColumns)
    .from(agentDocuments)
    .where(where)
    .orderBy(desc(agentDocuments.updatedAt), desc(agentDocuments.id))
    .limit(parsed.limit)
    .offset(parsed.offset);
  const total = await countDocuments(db, where);
  const nextOffset = parsed.offset + items.length < total && items.length > 0 ? parsed.offset + items.length : null;
  return { items, total, nextOffset };
}

/**
 * Ranked full-text search over title (weight A), tags (B) and content (C) with `ts_rank`, each hit
 * carrying a short `ts_headline` snippet. The snippets are computed only for the page returned.
 */
export async function searchDocuments(db: Database, actor: DocumentActor, query: SearchDocumentsQuery): Promise<DocumentPage<DocumentSearchHit>> {
  const parsed = parseInput(searchDocumentsQuerySchema, query);
  const tsQuery = toTsQuery(parsed.q);
  const terms = cjkTerms(parsed.q);
  const where = filters(actor, parsed);
  const fullTextRank = sql`ts_rank(${agentDocuments.searchVector}, ${tsQuery})`;
  const rank = terms.length ? sql<number>`(${fullTextRank} + ${substringRank(searchColumns, terms)})` : sql<number>`${fullTextRank}`;
  const ranked = db
    .select({ ...listColumns, content: agentDocuments.content, rank: rank.as('rank') })
    .from(agentDocuments)
    .where(where)
    .orderBy(sql`rank desc`, desc(agentDocuments.updatedAt), desc(agentDocuments.id))
    .limit(parsed.limit)
    .offset(parsed.offset)
    .as('ranked');
  const rows = await db
    .select({
      id: ranked.id,
      type: ranked.type,
      title: ranked.title,
      summary: ranked.summary,
      tags: ranked.tags,
      version: ranked.version,
      createdAt: ranked.createdAt,
      updatedAt: ranked.updatedAt,
      rank: ranked.rank,
      snippet: sql<string>`ts_headline(${searchConfig}, ${ranked.content}, ${tsQuery}, ${HEADLINE_OPTIONS})`,
      content: ranked.content,
    })
    .from(ranked)
    .orderBy(desc(ranked.rank), desc(ranked.updatedAt), desc(ranked.id));
  // ts_headline cannot find CJK terms inside a sentence: highlight those here.
  const items = rows.map(({ content, ...row }) => ({
    ...row,
    rank: Number(row.rank),
    snippet: terms.length && !row.snippet.includes('**') ? (highlightSnippet(content, terms) ?? row.snippet) : row.snippet,
  }));
  const total = await countDocuments(db, where);
  const nextOffset = parsed.offset + items.length < total && items.length > 0 ? parsed.offset + items.length : null;
  return { items, total, nextOffset };
}

type Changes = Partial<Pick<AgentDocument, 'title' | 'content' | 'summary' | 'tags'>>;

/**
 * The one write path after creation: locks the actor's row, checks `expectedVersion`, applies
 * `change(current)`, bumps the version and records the new state as a revision, in one transaction.
 */
async function changeDocument(
  db: Database,
  actor: DocumentActor,
  id: string,
  expectedVersion: number | undefined,
  limits: DocumentLimits,
  change: (current: AgentDocument) => Changes,
): Promise<AgentDocument> {
  ownerOf(actor);
  return db.transaction(async (tx) => {
    const [current] = await tx.select(documentColumns).from(agentDocuments).where(ownedBy(actor, id)).for('update');
    if (!current) throw new DocumentNotFoundError(id);
    if (expectedVersion !== undefined && current.version !== expectedVersion) throw new DocumentVersionConflictError(id, expectedVersion, current.version);
    const changes = change(current);
    if (Object.keys(changes).length === 0) return current;
    if (changes.content !== undefined) assertContentLength(changes.content, limits);
    const [updated] = await tx
      .update(agentDocuments)
      .set({ ...changes, version: sql`${agentDocuments.version} + 1`, updatedAt: new Date() })
      .where(and(ownedBy(actor, id), eq(agentDocuments.version, current.version)))
      .returning(documentColumns);
    // The row is locked, so this only happens if the lock was somehow not held.
    if (!updated) throw new DocumentVersionConflictError(id, current.version, current.version + 1);
    await writeRevision(tx, actor, updated);
    return updated;
  });
}

/** The summary after a content change: the given one, else re-cut from the new content. */
function summaryFor(content: string, summary: string | null | undefined, limits: DocumentLimits): string {
  return summary || summarizeContent(content, limits.defaultSummaryLength);
}

/**
 * Updates title/content/summary/tags; with `expectedVersion`, only if the document is still at that
 * version (DocumentVersionConflictError otherwise). A new content without a summary re-cuts the summary.
 */
export async function updateDocument(
  db: Database,
  actor: DocumentActor,
  id: string,
  input: UpdateDocumentInput,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): Promise<AgentDocument> {
  const parsed = parseInput(updateDocumentInputSchema, input);
  return changeDocument(db, actor, id, parsed.expectedVersion, limits, (current) => {
    const changes: Changes = {};
    if (parsed.title !== undefined) changes.title = parsed.title;
    if (parsed.content !== undefined) changes.content = parsed.content;
    if (parsed.tags !== undefined) changes.tags = normalizeTags(parsed.tags);
    if (parsed.summary !== undefined || parsed.content !== undefined) {
      changes.summary = summaryFor(changes.content ?? current.content, parsed.summary, limits);
    }
    return changes;
  });
}

/** Hard-deletes the actor's document (its revisions go with it); returns what was deleted. */
export async function deleteDocument(db: Database, actor: DocumentActor, id: string): Promise<AgentDocument> {
  const [deleted] = await db.delete(agentDocuments).where(ownedBy(actor, id)).returning(documentColumns);
  if (!deleted) throw new DocumentNotFoundError(id);
  return deleted;
}

/** How many times `search` occurs in `text` (non-overlapping). */
function countOccurrences(text: string, search: string): number {
  let occurrences = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) occurrences += 1;
  return occurrences;
}

/**
 * Replaces the one occurrence of `oldText` with `newText`. Zero or several occurrences are an
 * InvalidInputError saying how many there were, so the caller can make the text unique.
 */
export async function replaceInDocument(
  db: Database,
  actor: DocumentActor,
  id: string,
  edit: { oldText: string; newText: string; expectedVersion?: number },
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): Promise<AgentDocument> {
  if (edit.oldText.length === 0) throw new InvalidInputError('The text to replace must not be empty', [{ path: ['oldText'], message: 'empty' }]);
  return changeDocument(db, actor, id, edit.expectedVersion, limits, (current) => {
    const matches = countOccurrences(current.content, edit.oldText);
    if (matches === 0) {
      throw new InvalidInputError(
        `The text to replace was not found in document ${id} (0 matches). Read the document and copy the exact text, including whitespace and line breaks.`,
        [{ path: ['oldText'], message: '0 matches', matches }],
      );
    }
    if (matches > 1) {
      throw new InvalidInputError(
        `The text to replace occurs ${matches} times in document ${id} (${matches} matches); it must match exactly once. Include more of the surrounding text to make it unique.`,
        [{ path: ['oldText'], message: `${matches} matches`, matches }],
      );
    }
    const index = current.content.indexOf(edit.oldText);
    const content = current.content.slice(0, index) + edit.newText + current.content.slice(index + edit.oldText.length);
    return { content, summary: summaryFor(content, undefined, limits) };
  });
}

/** A document's lines; a final newline ends the last line rather than starting an empty one. */
export function splitLines(content: string): { lines: string[]; trailingNewline: boolean } {
  if (content === '') return { lines: [], trailingNewline: false };
  const trailingNewline = content.endsWith('\n');
  const lines = (trailingNewline ? content.slice(0, -1) : content).split('\n');
  return { lines, trailingNewline };
}

/** Inserts `text` after line `line` (0 = at the top, the line count = at the end). */
export async function insertIntoDocument(
  db: Database,
  actor: DocumentActor,
  id: string,
  edit: { line: number; text: string; expectedVersion?: number },
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): Promise<AgentDocument> {
  if (!Number.isInteger(edit.line) || edit.line < 0) throw new InvalidInputError('line must be a whole number, 0 or more', [{ path: ['line'], message: 'invalid' }]);
  return changeDocument(db, actor, id, edit.expectedVersion, limits, (current) => {
    const { lines, trailingNewline } = splitLines(current.content);
    if (edit.line > lines.length) {
      throw new InvalidInputError(`Line ${edit.line} is past the end: document ${id} has ${lines.length} lines (use 0 to ${lines.length})`, [
        { path: ['line'], message: `at most ${lines.length}` },
      ]);
    }
    const inserted = (edit.text.endsWith('\n') ? edit.text.slice(0, -1) : edit.text).split('\n');
    const joined = [...lines.slice(0, edit.line), ...inserted, ...lines.slice(edit.line)].join('\n');
    const content = trailingNewline ? `${joined}\n` : joined;
    return { content, summary: summaryFor(content, undefined, limits) };
  });
}

export type DocumentLines = {
  document: Omit<AgentDocument, 'content'>;
  /** 1-based, inclusive; 0 and 0 for an empty document. */
  startLine: number;
  endLine: number;
  totalLines: number;
  lines: string[];
};

/** Lines `startLine`..`endLine` (1-based, inclusive; the end is clamped to the last line). */
export async function readDocumentLines(db: Database, actor: DocumentActor, id: string, range: { startLine?: number; endLine?: number } = {}): Promise<DocumentLines> {
  const { content, ...document } = await getDocument(db, actor, id);
  const { lines } = splitLines(content);
  const startLine = range.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1) throw new InvalidInputError('startLine must be 1 or more', [{ path: ['startLine'], message: 'invalid' }]);
  if (lines.length === 0) return { document, startLine: 0, endLine: 0, totalLines: 0, lines: [] };
  if (startLine > lines.length) {
    throw new InvalidInputError(`startLine ${startLine} is past the end: document ${id} has ${lines.length} lines`, [{ path: ['startLine'], message: `at most ${lines.length}` }]);
  }
  const endLine = Math.min(range.endLine ?? lines.length, lines.length);
  if (!Number.isInteger(endLine) || endLine < startLine) {
    throw new InvalidInputError(`endLine must be at least startLine (${startLine})`, [{ path: ['endLine'], message: 'before startLine' }]);
  }
  return { document, startLine, endLine, totalLines: lines.length, lines: lines.slice(startLine - 1, endLine) };
}

/** Every recorded version of the actor's document, newest first. */
export async function listDocumentRevisions(db: Database, actor: DocumentActor, id: string): Promise<DocumentRevision[]> {
  await getDocument(db, actor, id);
  return db.select().from(agentDocumentRevisions).where(eq(agentDocumentRevisions.documentId, id)).orderBy(desc(agentDocumentRevisions.version));
}

/**
 * Makes a new version equal to revision `version` (title, content, summary, tags); the history is
 * kept, so a restore can itself be undone.
 */
export async function restoreDocumentRevision(
  db: Database,
  actor: DocumentActor,
  id: string,
  version: number,
  options: { expectedVersion?: number } = {},
): Promise<AgentDocument> {
  const [revision] = await db
    .select({ title: agentDocumentRevisions.title, content: agentDocumentRevisions.content, summary: agentDocumentRevisions.summary, tags: agentDocumentRevisions.tags })
    .from(agentDocumentRevisions)
    .innerJoin(agentDocuments, eq(agentDocuments.id, agentDocumentRevisions.documentId))
    .where(and(ownedBy(actor, id), eq(agentDocumentRevisions.version, version)));
  if (!revision) {
    const current = await getDocument(db, actor, id);
    throw new DocumentRevisionNotFoundError(id, version, current.version);
  }
  // A restored version may exceed a smaller limit configured later; it existed before, so let it back.
  return changeDocument(db, actor, id, options.expectedVersion, { ...DEFAULT_DOCUMENT_LIMITS, maxContentLength: Number.MAX_SAFE_INTEGER }, () => ({ ...revision }));
}

/** What the API shows: the session a document came from stays internal (seed 003 ch.1). */
export function toDocumentView(document: AgentDocument) {
  const { sessionId: _sessionId, ...view } = document;
  return view;
}
