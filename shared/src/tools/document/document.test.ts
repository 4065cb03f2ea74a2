import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DbHandle } from '../../db/client';
import { agentDocumentRevisions, agentDocuments, agentToolLogs, users } from '../../db/schema';
import { newId } from '../../ids';
import { createDocument, getDocument, listDocumentRevisions, updateDocument } from '../../services/documents';
import { createTool, executeTool } from '../../services/tools';
import { openTestDb } from '../../testing';
import type { ToolContext, ToolResult } from '../define-tool-type';
import { getToolType, inputJsonSchema } from '../registry';
import { documentToolType, NEEDS_LOGIN_ERROR } from './index';
import { tokenCounter, type TokenCounter } from './token-budget';

let database: DbHandle;
let tokens: TokenCounter;

beforeAll(async () => {
  database = await openTestDb();
  tokens = await tokenCounter();
});
afterAll(() => database.close());

async function newUser(): Promise<string> {
  const id = newId('user');
  await database.db.insert(users).values({ id, email: `${id}@test.local`, name: 'tool', passwordHash: 'x' });
  return id;
}

type Actor = { userId: string | null; runId?: string; sessionId?: string };

function context(actor: Actor): ToolContext {
  return {
    userId: actor.userId,
    runId: actor.runId ?? null,
    sessionId: actor.sessionId ?? null,
    toolCallId: null,
    signal: new AbortController().signal,
    allowPrivateNetworks: false,
    services: { db: database.db },
  };
}

function run(actor: Actor, input: unknown, config: Record<string, unknown> = {}): Promise<ToolResult> {
  return documentToolType.execute(input as never, documentToolType.configSchema.parse(config), context(actor));
}

/** The data of a successful result (fails the test with the error otherwise). */
async function ok(actor: Actor, input: unknown, config: Record<string, unknown> = {}): Promise<any> {
  const result = await run(actor, input, config);
  expect(result.error, JSON.stringify(input)).toBeUndefined();
  expect(result.success).toBe(true);
  return result.data;
}

async function failure(actor: Actor, input: unknown, config: Record<string, unknown> = {}): Promise<string> {
  const result = await run(actor, input, config);
  expect(result.success, JSON.stringify(input)).toBe(false);
  expect(result.metadata.durationMs).toBeTypeOf('number');
  return result.error!;
}

async function snapshot(id: string) {
  return {
    documents: await database.db.select().from(agentDocuments).where(eq(agentDocuments.id, id)),
    revisions: await database.db.select().from(agentDocumentRevisions).where(eq(agentDocumentRevisions.documentId, id)).orderBy(agentDocumentRevisions.version),
  };
}

/** Chinese text: about 0.8 tokens per character, so chars/4 underestimates it about threefold. */
const CHINESE_SENTENCE = '记忆是智能体跨会话保存信息的方式。';

describe('definition', () => {
  it('has the seed defaults, JSON Schemas for the LLM and a description of actions and budgets', () => {
    expect(documentToolType.configSchema.parse({})).toEqual({
      maxContentLength: 50_000,
      defaultSummaryLength: 200,
      tokenBudget: 2_000,
      maxPageSize: 20,
      approvalRequiredActions: ['delete'],
    });
    expect(documentToolType.configSchema.safeParse({ approvalRequiredActions: ['explode'] }).success).toBe(false);
    expect(getToolType('document')).toBe(documentToolType);
    const schema = inputJsonSchema(documentToolType as never) as unknown as { type: string; oneOf: { properties: { action: { const: string } }; required: string[] }[] };
    expect(schema.type).toBe('object');
    const required = Object.fromEntries(schema.oneOf.map((option) => [option.properties.action.const, option.required]));
    expect(required).toMatchObject({
      create: ['action', 'title', 'content'],
      read: ['action', 'id'],
      delete: ['action', 'id'],
      list: ['action'],
      search: ['action', 'q'],
      str_replace: ['action', 'id', 'oldText', 'newText'],
      insert: ['action', 'id', 'line', 'text'],
      restore: ['action', 'id', 'version'],
    });
    expect(z.toJSONSchema(documentToolType.configSchema, { io: 'input' })).toMatchObject({ type: 'object' });
    const description = documentToolType.describe(documentToolType.configSchema.parse({ tokenBudget: 1234 }));
    for (const word of ['memory', 'document', 'create', 'str_replace', 'insert', 'restore', 'fullContent', '1234 tokens', "approval before they run: delete"]) {
      expect(description).toContain(word);
    }
  });

  it('asks for approval exactly for the configured actions', () => {
    const defaults = documentToolType.configSchema.parse({});
    expect(documentToolType.needsApproval!({ action: 'delete', id: 'ad_x' } as never, defaults)).toBe(true);
    for (const action of ['create', 'read', 'update', 'list', 'search', 'str_replace', 'insert', 'restore']) {
      expect(documentToolType.needsApproval!({ action } as never, defaults)).toBe(false);
    }
    const strict = documentToolType.configSchema.parse({ approvalRequiredActions: ['update', 'str_replace'] });
    expect(documentToolType.needsApproval!({ action: 'update' } as never, strict)).toBe(true);
    expect(documentToolType.needsApproval!({ action: 'delete' } as never, strict)).toBe(false);
    expect(documentToolType.needsApproval!(null as never, defaults)).toBe(false);
  });
});

describe('errors as failed results', () => {
  it('needs a logged-in session', async () => {
    expect(await failure({ userId: null }, { action: 'list' })).toBe(NEEDS_LOGIN_ERROR);
    expect(NEEDS_LOGIN_ERROR).toMatch(/needs a logged-in session/);
  });

  it('names the missing fields per action, and the valid actions', async () => {
    const userId = await newUser();
    expect(await failure({ userId }, { action: 'create', title: 'x' })).toMatch(/content: create needs "content"/);
    expect(await failure({ userId }, { action: 'read' })).toMatch(/id: read needs "id"/);
    expect(await failure({ userId }, { action: 'update', id: 'ad_x' })).toMatch(/update needs at least one of "title", "content", "summary", "tags"/);
    expect(await failure({ userId }, { action: 'str_replace', id: 'ad_x', newText: 'y' })).toMatch(/str_replace needs "oldText"/);
    expect(await failure({ userId }, { action: 'insert', id: 'ad_x', text: 'y' })).toMatch(/insert needs "line"/);
    expect(await failure({ userId }, { action: 'restore', id: 'ad_x' })).toMatch(/restore needs "version"/);
    expect(await failure({ userId }, { action: 'search' })).toMatch(/search needs "q"/);
    expect(await failure({ userId }, { action: 'erase' })).toMatch(/"action" must be one of: create, read, update, delete, list, search, str_replace, insert, restore/);
  });

  it('refuses content over maxContentLength', async () => {
    const userId = await newUser();
    const error = await failure({ userId }, { action: 'create', title: 'Big', content: 'x'.repeat(1_001) }, { maxContentLength: 1_000 });
    expect(error).toMatch(/Content exceeds the maximum length: it is 1001 characters, the limit is 1000/);
    expect(await ok({ userId }, { action: 'list' })).toMatchObject({ total: 0 });
  });

  it('the registry path (executeTool with a tool row) reports zod issues and logs the call', async () => {
    const userId = await newUser();
    const tool = await createTool(database.db, { name: 'Docs', slug: `docs_${Date.now().toString(36)}`, type: 'document', description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, config: {} });
    const runId = newId('run');
    const invalid = await executeTool(database.db, { tool, input: { action: 'create' }, context: { userId, runId, sessionId: null, toolCallId: 'call_1', allowPrivateNetworks: false, services: { db: database.db } } });
    expect(invalid.error).toMatch(/create needs "title"/);
    const created = await executeTool(database.db, {
      tool,
      input: { action: 'create', title: 'Logged', content: 'Through the registry' },
      context: { userId, runId, sessionId: 'cs_registry', toolCallId: 'call_2', allowPrivateNetworks: false, services: { db: database.db } },
    });
    expect(created.success).toBe(true);
    const [log] = await database.db.select().from(agentToolLogs).where(eq(agentToolLogs.toolCallId, 'call_2'));
    expect(log).toMatchObject({ runId, status: 'success', toolSlug: tool.slug });
    expect((await getDocument(database.db, { userId }, (created.data as { id: string }).id)).sessionId).toBe('cs_registry');
  });
});

describe('create, read, update, delete', () => {
  it('creates a memory by default, stamped with the session and run', async () => {
    const userId = await newUser();
    const created = await ok({ userId, runId: 'run_create', sessionId: 'cs_one' }, { action: 'create', title: 'Colour', content: 'The favourite colour is teal.', tags: 'prefs' });
    expect(created).toMatchObject({ title: 'Colour', type: 'memory', version: 1, summary: 'The favourite colour is teal.' });
    const stored = await getDocument(database.db, { userId }, created.id);
    expect(stored).toMatchObject({ sessionId: 'cs_one', tags: 'prefs' });
    expect((await listDocumentRevisions(database.db, { userId }, created.id))[0]).toMatchObject({ createdByRunId: 'run_create', createdByUserId: userId });
    expect(await ok({ userId }, { action: 'create', title: 'Report', content: '# Weekly', type: 'document', summary: 'The weekly report' })).toMatchObject({ type: 'document', summary: 'The weekly report' });
  });

  it('read returns content that fits the budget, counted in real tokens (not chars/4)', async () => {
    const userId = await newUser();
    // 9000 characters (chars/4 = 2250, over the budget) but about 1500 real tokens: it fits.
    const english = 'hello '.repeat(1_500);
    expect(english.length / 4).toBeGreaterThan(2_000);
    expect(tokens.count(english)).toBeLessThanOrEqual(2_000);
    const fits = await ok({ userId }, { action: 'create', title: 'Greetings', content: english });
    const read = await ok({ userId }, { action: 'read', id: fits.id });
    expect(read.content).toBe(english);
    expect(read).toMatchObject({ contentTokens: tokens.count(english), version: 1, totalLines: 1 });
    expect(read).not.toHaveProperty('truncated');
  });

  it('read returns the summary and the hint when the content is over the budget in real tokens', async () => {
    const userId = await newUser();
    // ~3000 characters (chars/4 = 765, under the budget) but over 2000 real tokens.
    const chinese = CHINESE_SENTENCE.repeat(180);
    expect(chinese.length / 4).toBeLessThan(2_000);
    expect(tokens.count(chinese)).toBeGreaterThan(2_000);
    const big = await ok({ userId }, { action: 'create', title: '长文', content: chinese });
    const read = await ok({ userId }, { action: 'read', id: big.id });
    expect(read).not.toHaveProperty('content');
    expect(read.summary).toBe(`${CHINESE_SENTENCE.repeat(12).slice(0, 199)}…`);
    expect(read).toMatchObject({ truncated: true, contentTokens: tokens.count(chinese) });
    expect(read.hint).toMatch(/too long .* only the summary is returned\. For the full content, read again with fullContent=true/);
    const full = await ok({ userId }, { action: 'read', id: big.id, fullContent: true });
    expect(full.content).toBe(chinese);
  });

  it('read with a line range returns numbered lines, cut at the budget with where to continue', async () => {
    const userId = await newUser();
    const lines = Array.from({ length: 40 }, (_, index) => `${index + 1}. ${CHINESE_SENTENCE}`);
    const document = await ok({ userId }, { action: 'create', title: 'Lines', content: `${lines.join('\n')}\n` });
    const part = await ok({ userId }, { action: 'read', id: document.id, startLine: 2, endLine: 3 });
    expect(part).toMatchObject({ startLine: 2, endLine: 3, totalLines: 40, lines: `2\t${lines[1]}\n3\t${lines[2]}` });

    const budget = 100;
    const cut = await ok({ userId }, { action: 'read', id: document.id, startLine: 1 }, { tokenBudget: budget });
    expect(cut.truncated).toBe(true);
    expect(cut.endLine).toBeGreaterThan(1);
    expect(cut.endLine).toBeLessThan(40);
    expect(tokens.count(cut.lines)).toBeLessThanOrEqual(budget);
    // A chars/4 estimate would have taken at least the next line too.
    expect(`${cut.lines}\n${cut.endLine + 1}\t${lines[cut.endLine]}`.length / 4).toBeLessThanOrEqual(budget);
    expect(cut.hint).toContain(`Continue with startLine=${cut.endLine + 1}`);
    const next = await ok({ userId }, { action: 'read', id: document.id, startLine: cut.endLine + 1 }, { tokenBudget: budget });
    expect(next.startLine).toBe(cut.endLine + 1);
    expect(await failure({ userId }, { action: 'read', id: document.id, startLine: 41 })).toMatch(/startLine 41 is past the end: .* has 40 lines/);
  });

  it('update changes fields, and a stale expectedVersion is a conflict that changes nothing', async () => {
    const userId = await newUser();
    const document = await ok({ userId }, { action: 'create', title: 'Plan', content: 'Plan A' });
    expect(await ok({ userId }, { action: 'update', id: document.id, content: 'Plan B', expectedVersion: 1 })).toMatchObject({ version: 2, title: 'Plan' });
    expect((await getDocument(database.db, { userId }, document.id)).summary).toBe('Plan B');
    const before = await snapshot(document.id);
    expect(await failure({ userId }, { action: 'update', id: document.id, content: 'Plan C', expectedVersion: 1 })).toMatch(/has changed: it is at version 2, not the expected version 1\. Read it again/);
    expect(await snapshot(document.id)).toEqual(before);
  });

  it('delete removes the document; afterwards it is not found', async () => {
    const userId = await newUser();
    const document = await ok({ userId }, { action: 'create', title: 'Temp', content: 'x' });
    expect(await ok({ userId }, { action: 'delete', id: document.id })).toEqual({ id: document.id, title: 'Temp', deleted: true });
    expect(await failure({ userId }, { action: 'read', id: document.id })).toBe(`Document ${document.id} not found or no access`);
  });
});

describe('list and search budgets', () => {
  it('list has no content, pages, and cuts at the token budget with hasMore and the next offset', async () => {
    const userId = await newUser();
    for (let index = 0; index < 6; index++) {
      await ok({ userId }, { action: 'create', title: `记忆 ${index}`, content: CHINESE_SENTENCE.repeat(5), summary: CHINESE_SENTENCE.repeat(3) });
    }
    const budget = 300;
    const first = await ok({ userId }, { action: 'list' }, { tokenBudget: budget });
    expect(first.total).toBe(6);
    expect(first.items[0]).not.toHaveProperty('content');
    expect(Object.keys(first.items[0]).sort()).toEqual(['id', 'summary', 'tags', 'title', 'type', 'updatedAt']);
    const cost = (items: unknown[]) => items.reduce<number>((sum, item) => sum + tokens.count(JSON.stringify(item)), 0);
    // In real tokens the page is cut: what came back fits, one more would not...
    expect(first.items.length).toBeLessThan(6);
    expect(cost(first.items)).toBeLessThanOrEqual(budget);
    const all = [...first.items];
    // ...while a chars/4 estimate would have returned all six.
    const firstPageEstimate = (await ok({ userId }, { action: 'list' }, { tokenBudget: 100_000 })).items;
    expect(JSON.stringify(firstPageEstimate).length / 4).toBeLessThanOrEqual(budget);
    expect(cost(firstPageEstimate)).toBeGreaterThan(budget);
    expect(first).toMatchObject({ hasMore: true, nextOffset: first.items.length });
    expect(first.hint).toContain(`stopped at the ${budget}-token budget`);
    expect(first.hint).toContain(`offset=${first.items.length}`);

    let page = first;
    while (page.hasMore) {
      page = await ok({ userId }, { action: 'list', offset: page.nextOffset }, { tokenBudget: budget });
      all.push(...page.items);
    }
    expect(new Set(all.map((item: { id: string }) => item.id)).size).toBe(6);
    expect(page).not.toHaveProperty('hint');
  });

  it('list pages by page/pageSize within maxPageSize, filters by type and text, and says when nothing matches', async () => {
    const userId = await newUser();
    for (let index = 0; index < 5; index++) await ok({ userId }, { action: 'create', title: `Note ${index}`, content: `note ${index}`, type: index % 2 ? 'document' : 'memory' });
    await ok({ userId }, { action: 'create', title: 'Standup meetings', content: 'Daily at nine.' });
    const capped = await ok({ userId }, { action: 'list', pageSize: 50 }, { maxPageSize: 4 });
    expect(capped.items).toHaveLength(4);
    expect(capped).toMatchObject({ total: 6, hasMore: true, nextOffset: 4 });
    expect(capped.hint).not.toContain('token budget');
    const second = await ok({ userId }, { action: 'list', page: 2, pageSize: 4 });
    expect(second).toMatchObject({ offset: 4, hasMore: false });
    expect(second.items).toHaveLength(2);
    expect((await ok({ userId }, { action: 'list', filterType: 'document' })).total).toBe(2);
    expect((await ok({ userId }, { action: 'list', q: 'meeting' })).items.map((item: { title: string }) => item.title)).toEqual(['Standup meetings']);
    expect(await ok({ userId }, { action: 'list', q: 'zebra' })).toMatchObject({ total: 0, hasMore: false, hint: 'No documents match these filters.' });
  });

  it('search ranks the more relevant document first, with snippets, within the budget', async () => {
    const userId = await newUser();
    const passing = await ok({ userId }, { action: 'create', title: 'Trip notes', content: `${'We walked around the old town. '.repeat(30)}Someone mentioned the deadline.` });
    const focused = await ok({ userId }, { action: 'create', title: 'Deadline', content: 'The deadline moved: the new deadline is Friday.', tags: 'deadline' });
    const result = await ok({ userId }, { action: 'search', q: 'deadlines' });
    expect(result.items.map((item: { id: string }) => item.id)).toEqual([focused.id, passing.id]);
    expect(result.items[0].rank).toBeGreaterThan(result.items[1].rank);
    expect(result.items[1].snippet).toContain('**deadline**');
    expect(result.items[1]).not.toHaveProperty('content');

    const tight = await ok({ userId }, { action: 'search', q: 'deadline' }, { tokenBudget: 100 });
    expect(tight.items).toHaveLength(1);
    expect(tight).toMatchObject({ total: 2, hasMore: true, nextOffset: 1 });
    expect(tight.hint).toContain('call search again with offset=1');
    expect((await ok({ userId }, { action: 'search', q: 'deadline', offset: 1 })).items[0].id).toBe(passing.id);
    expect(await ok({ userId }, { action: 'search', q: 'zebra' })).toMatchObject({ total: 0, hint: expect.stringMatching(/Nothing matches/) });
  });
});

describe('targeted edits and restore', () => {
  it('str_replace needs exactly one match and says how many it found', async () => {
    const userId = await newUser();
    const document = await ok({ userId }, { action: 'create', title: 'Todo', content: '- [ ] buy milk\n- [ ] call mum\n- [ ] buy bread\n' });
    expect(await ok({ userId }, { action: 'str_replace', id: document.id, oldText: '- [ ] call mum', newText: '- [x] call mum' })).toMatchObject({ version: 2, totalLines: 3 });
    expect(await failure({ userId }, { action: 'str_replace', id: document.id, oldText: 'walk dog', newText: 'x' })).toMatch(/0 matches/);
    expect(await failure({ userId }, { action: 'str_replace', id: document.id, oldText: '- [ ] buy', newText: 'x' })).toMatch(/occurs 2 times .*\(2 matches\).* Include more of the surrounding text/);
    expect((await getDocument(database.db, { userId }, document.id)).content).toBe('- [ ] buy milk\n- [x] call mum\n- [ ] buy bread\n');
  });

  it('insert puts text after a line number', async () => {
    const userId = await newUser();
    const document = await ok({ userId }, { action: 'create', title: 'Agenda', content: '1. intro\n3. close\n' });
    expect(await ok({ userId }, { action: 'insert', id: document.id, line: 1, text: '2. budget' })).toMatchObject({ version: 2, insertedAfterLine: 1, totalLines: 3 });
    expect((await getDocument(database.db, { userId }, document.id)).content).toBe('1. intro\n2. budget\n3. close\n');
    expect(await failure({ userId }, { action: 'insert', id: document.id, line: 9, text: 'x' })).toMatch(/Line 9 is past the end/);
    expect(await failure({ userId }, { action: 'insert', id: document.id, line: 0, text: 'x', expectedVersion: 1 })).toMatch(/not the expected version 1/);
  });

  it('restore brings an earlier version back as a new version', async () => {
    const userId = await newUser();
    const document = await ok({ userId }, { action: 'create', title: 'Policy', content: 'Version one.' });
    await updateDocument(database.db, { userId }, document.id, { content: 'Version two.' });
    expect(await ok({ userId, runId: 'run_restore' }, { action: 'restore', id: document.id, version: 1 })).toMatchObject({ version: 3, restoredFrom: 1, title: 'Policy' });
    expect((await getDocument(database.db, { userId }, document.id)).content).toBe('Version one.');
    expect(await failure({ userId }, { action: 'restore', id: document.id, version: 7 })).toBe(`Document ${document.id} has no version 7 (its versions are 1 to 3)`);
  });
});

describe('isolation', () => {
  it("every action given another user's document id fails with not found, and the database is unchanged", async () => {
    const owner = await newUser();
    const stranger: Actor = { userId: await newUser(), runId: 'run_stranger', sessionId: 'cs_stranger' };
    const document = await createDocument(database.db, { userId: owner }, { type: 'memory', title: 'Private memory', content: 'line one\nline two', tags: 'private' });
    await updateDocument(database.db, { userId: owner }, document.id, { content: 'line one\nline two\nline three' });
    const before = await snapshot(document.id);
    const attempts = [
      { action: 'read', id: document.id },
      { action: 'read', id: document.id, fullContent: true },
      { action: 'read', id: document.id, startLine: 1, endLine: 2 },
      { action: 'update', id: document.id, title: 'pwned' },
      { action: 'delete', id: document.id },
      { action: 'str_replace', id: document.id, oldText: 'line one', newText: 'pwned' },
      { action: 'insert', id: document.id, line: 0, text: 'pwned' },
      { action: 'restore', id: document.id, version: 1 },
    ];
    for (const input of attempts) expect(await failure(stranger, input)).toBe(`Document ${document.id} not found or no access`);
    expect(await ok(stranger, { action: 'list' })).toMatchObject({ total: 0, items: [] });
    expect(await ok(stranger, { action: 'search', q: 'private memory' })).toMatchObject({ total: 0, items: [] });
    expect(await snapshot(document.id)).toEqual(before);
    expect(await database.db.select().from(agentDocuments).where(eq(agentDocuments.userId, stranger.userId!))).toHaveLength(0);
  });
});
