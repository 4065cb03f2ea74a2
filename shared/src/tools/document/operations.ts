import type { Database } from '../../db/client';
import {
  createDocument,
  deleteDocument,
  getDocument,
  insertIntoDocument,
  listDocuments,
  readDocumentLines,
  replaceInDocument,
  restoreDocumentRevision,
  searchDocuments,
  splitLines,
  updateDocument,
  type AgentDocument,
  type DocumentActor,
  type DocumentLimits,
} from '../../services/documents';
import type { DocumentAction, DocumentActionInput, DocumentToolConfig } from './schemas';
import { fitItems, jsonTokens, type TokenCounter } from './token-budget';

/** What every action gets: the database, who acts (user, run, session), the instance config, the tokenizer. */
export type OperationEnv = { db: Database; actor: DocumentActor; config: DocumentToolConfig; limits: DocumentLimits; tokens: TokenCounter };
type Operation<Action extends DocumentAction> = (input: DocumentActionInput<Action>, env: OperationEnv) => Promise<unknown>;

const DEFAULT_PAGE_SIZE = 10;

function headline(document: Omit<AgentDocument, 'content'>) {
  return { id: document.id, type: document.type, title: document.title, tags: document.tags, version: document.version, updatedAt: document.updatedAt };
}

function pageSize(requested: number | undefined, config: DocumentToolConfig): number {
  return Math.min(requested ?? Math.min(DEFAULT_PAGE_SIZE, config.maxPageSize), config.maxPageSize);
}

/** Cuts one text field of an item so the whole item fits in `budget` tokens. */
function shrinkField<Item extends Record<string, unknown>>(tokens: TokenCounter, field: keyof Item & string) {
  return (item: Item, budget: number): Item => {
    const overhead = jsonTokens(tokens, { ...item, [field]: '' });
    const text = typeof item[field] === 'string' ? (item[field] as string) : '';
    return { ...item, [field]: `${tokens.truncate(text, Math.max(0, budget - overhead - 2))}…` };
  };
}

function moreHint(what: 'list' | 'search', nextOffset: number | null, cut: boolean, budget: number): string | undefined {
  if (nextOffset === null) return undefined;
  const reason = cut ? ` (this page stopped at the ${budget}-token budget)` : '';
  return `More results${reason}: call ${what} again with offset=${nextOffset} and the same filters.`;
}

const create: Operation<'create'> = async (input, { db, actor, limits }) => {
  const document = await createDocument(db, actor, { type: input.type, title: input.title, content: input.content, summary: input.summary, tags: input.tags }, limits);
  return { id: document.id, title: document.title, type: document.type, version: document.version, summary: document.summary, createdAt: document.createdAt };
};

/** Numbered lines ("12<TAB>text") from `startLine`, as many as the token budget allows (at least one, cut if needed). */
const readLines = async (input: DocumentActionInput<'read'>, { db, actor, config, tokens }: OperationEnv) => {
  const view = await readDocumentLines(db, actor, input.id, { startLine: input.startLine, endLine: input.endLine });
  const shown: string[] = [];
  let used = 0;
  let lastLine = view.startLine - 1;
  for (const [index, line] of view.lines.entries()) {
    const numbered = `${view.startLine + index}\t${line}`;
    const cost = tokens.count(numbered) + 1;
    if (used + cost > config.tokenBudget) {
      if (shown.length === 0) {
        shown.push(`${tokens.truncate(numbered, config.tokenBudget)}…`);
        lastLine = view.startLine;
      }
      break;
    }
    shown.push(numbered);
    used += cost;
    lastLine = view.startLine + index;
  }
  const truncated = lastLine < view.endLine;
  return {
    ...headline(view.document),
    totalLines: view.totalLines,
    startLine: view.startLine,
    endLine: lastLine,
    lines: shown.join('\n'),
    ...(truncated
      ? { truncated: true, hint: `Stopped at line ${lastLine} to stay within the ${config.tokenBudget}-token budget. Continue with startLine=${lastLine + 1}.` }
      : {}),
  };
};

/**
 * The content when it fits the token budget (or `fullContent` is set), else the summary and how to
 * get more (seed 003 ch.3); `startLine`/`endLine` read numbered lines instead.
 */
const read: Operation<'read'> = async (input, env) => {
  if (input.startLine !== undefined || input.endLine !== undefined) return readLines(input, env);
  const { db, actor, config, tokens } = env;
  const document = await getDocument(db, actor, input.id);
  const contentTokens = tokens.count(document.content);
  const base = { ...headline(document), totalLines: splitLines(document.content).lines.length, contentTokens };
  if (input.fullContent || contentTokens <= config.tokenBudget) return { ...base, content: document.content };
  return {
    ...base,
    summary: document.summary,
    truncated: true,
    hint:
      `The content is too long (${contentTokens} tokens, over the ${config.tokenBudget}-token budget), so only the summary is returned. ` +
      `For the full content, read again with fullContent=true; or read part of it with startLine/endLine (it has ${base.totalLines} lines).`,
  };
};

const update: Operation<'update'> = async (input, { db, actor, limits }) => {
  const document = await updateDocument(
    db,
    actor,
    input.id,
    { title: input.title, content: input.content, summary: input.summary, tags: input.tags, expectedVersion: input.expectedVersion },
    limits,
  );
  return { id: document.id, title: document.title, version: document.version, updatedAt: document.updatedAt };
};

const remove: Operation<'delete'> = async (input, { db, actor }) => {
  const document = await deleteDocument(db, actor, input.id);
  return { id: document.id, title: document.title, deleted: true };
};

/** Documents without content, newest first, a page at a time and cut at the token budget. */
const list: Operation<'list'> = async (input, { db, actor, config, tokens }) => {
  const limit = pageSize(input.pageSize, config);
  const offset = input.offset ?? ((input.page ?? 1) - 1) * limit;
  const page = await listDocuments(db, actor, { type: input.filterType, q: input.q, limit, offset });
  const entries = page.items.map((item) => ({ id: item.id, title: item.title, summary: item.summary, type: item.type, tags: item.tags, updatedAt: item.updatedAt }));
  const fitted = fitItems(tokens, entries, config.tokenBudget, shrinkField(tokens, 'summary'));
  const nextOffset = offset + fitted.items.length < page.total ? offset + fitted.items.length : null;
  const hint = page.total === 0 ? (input.q || input.filterType ? 'No documents match these filters.' : 'There are no documents yet.') : moreHint('list', nextOffset, fitted.cut, config.tokenBudget);
  return { items: fitted.items, total: page.total, offset, hasMore: nextOffset !== null, ...(nextOffset === null ? {} : { nextOffset }), ...(hint ? { hint } : {}) };
};

/** Ranked full-text hits with short snippets, cut at the token budget. */
const search: Operation<'search'> = async (input, { db, actor, config, tokens }) => {
  const offset = input.offset ?? 0;
  const page = await searchDocuments(db, actor, { q: input.q, type: input.filterType, limit: pageSize(input.limit, config), offset });
  const entries = page.items.map((hit) => ({
    id: hit.id,
    title: hit.title,
    type: hit.type,
    tags: hit.tags,
    updatedAt: hit.updatedAt,
    rank: Math.round(hit.rank * 10_000) / 10_000,
    snippet: hit.snippet,
  }));
  const fitted = fitItems(tokens, entries, config.tokenBudget, shrinkField(tokens, 'snippet'));
  const nextOffset = offset + fitted.items.length < page.total ? offset + fitted.items.length : null;
  const hint = page.total === 0 ? 'Nothing matches; try other or fewer words, or list the documents.' : moreHint('search', nextOffset, fitted.cut, config.tokenBudget);
  return { items: fitted.items, total: page.total, offset, hasMore: nextOffset !== null, ...(nextOffset === null ? {} : { nextOffset }), ...(hint ? { hint } : {}) };
};

const strReplace: Operation<'str_replace'> = async (input, { db, actor, limits }) => {
  const document = await replaceInDocument(db, actor, input.id, { oldText: input.oldText, newText: input.newText, expectedVersion: input.expectedVersion }, limits);
  return { id: document.id, version: document.version, updatedAt: document.updatedAt, totalLines: splitLines(document.content).lines.length };
};

const insert: Operation<'insert'> = async (input, { db, actor, limits }) => {
  const document = await insertIntoDocument(db, actor, input.id, { line: input.line, text: input.text, expectedVersion: input.expectedVersion }, limits);
  return { id: document.id, version: document.version, updatedAt: document.updatedAt, insertedAfterLine: input.line, totalLines: splitLines(document.content).lines.length };
};

const restore: Operation<'restore'> = async (input, { db, actor }) => {
  const document = await restoreDocumentRevision(db, actor, input.id, input.version, { expectedVersion: input.expectedVersion });
  return { id: document.id, title: document.title, version: document.version, restoredFrom: input.version, updatedAt: document.updatedAt };
};

/** One handler per action; the mapped type makes a missing action a compile error. */
export const operations = {
  create,
  read,
  update,
  delete: remove,
  list,
  search,
  str_replace: strReplace,
  insert,
  restore,
} satisfies { [Action in DocumentAction]: Operation<Action> };
