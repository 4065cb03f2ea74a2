import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../../infra/fake-llm/server';
import type { DbHandle } from '../../db/client';
import { knowledgeChunks, knowledgeFiles, llmModels, users } from '../../db/schema';
import { newId } from '../../ids';
import { bothTestDatabases, openEmbeddedTestDb, pdfWithPages } from '../../testing';
import { knowledgeToolType } from '../../tools/knowledge';
import { InvalidInputError, NotFoundError } from '../errors';
import { createModel, updateModel } from '../models';
import { createTool } from '../tools';
import { chunkText } from './chunk-text';
import { EmbeddingFailedError, ingestKnowledgeFile } from './ingest';
import { acceptKnowledgeUpload, createKnowledgeBase, deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases, listKnowledgeFiles, updateKnowledgeBase } from './knowledge-bases';
import { fuseRankings, searchKnowledge } from './search';
import { decodeVector } from './vector-ranking';

const APP_SECRET = 'knowledge-test-secret-0123456789abcdef';

const HANDBOOK = `# Staff handbook

## Annual leave

Full-time staff get 25 days of annual leave each calendar year. Unused days carry over until the end of March.

## Remote access

The VPN needs two-factor authentication. Ask the service desk for a hardware token.

## 报销

差旅报销需要在出差结束后三十天内提交，并附上发票。
`;

async function newUser(db: DbHandle['db'], role: 'admin' | 'user' = 'user'): Promise<string> {
  const id = newId('user');
  await db.insert(users).values({ id, email: `${id}@test.local`, name: 'knowledge', role, passwordHash: 'x' });
  return id;
}

async function addFile(db: DbHandle['db'], baseId: string, name: string, text: string | Uint8Array) {
  const outcome = await acceptKnowledgeUpload(db, baseId, { name, data: typeof text === 'string' ? new TextEncoder().encode(text) : text });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.file;
}

describe('chunkText', () => {
  it('keeps a short text whole', () => {
    expect(chunkText('# Title\n\nOne paragraph.')).toEqual(['# Title\n\nOne paragraph.']);
    expect(chunkText('   \n\n  ')).toEqual([]);
  });

  it('cuts long text into chunks of about 1,000 characters that overlap, every sentence kept', () => {
    const sentences = Array.from({ length: 120 }, (_, index) => `Sentence number ${index} says something about topic ${index % 7}.`);
    const text = [0, 1, 2, 3].map((section) => `## Section ${section}\n\n${sentences.slice(section * 30, section * 30 + 30).join(' ')}`).join('\n\n');
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1000 + 150 + 2);
    for (const sentence of sentences) expect(chunks.some((chunk) => chunk.includes(sentence))).toBe(true);
    // Each chunk after the first repeats the end of the one before.
    for (let index = 1; index < chunks.length; index += 1) {
      const opening = chunks[index]!.split('\n\n')[0]!;
      if (!opening.startsWith('## ')) expect(chunks[index - 1]!.endsWith(opening)).toBe(true);
    }
    // Headings open chunks: no chunk has a heading in its middle after much text.
    expect(chunks.filter((chunk) => chunk.startsWith('## Section')).length).toBeGreaterThanOrEqual(3);
  });

  it('cuts a paragraph with no sentence ends at spaces', () => {
    const words = Array.from({ length: 600 }, (_, index) => `word${index}`).join(' ');
    const chunks = chunkText(words, { size: 500, overlap: 50 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(552);
    expect(chunks.join(' ')).toContain('word599');
  });
});

describe('fuseRankings', () => {
  it('adds reciprocal ranks, so an id high in both lists wins', () => {
    const scores = fuseRankings([[1, 2, 3], [3, 1, 4]]);
    const order = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(order).toEqual([1, 3, 2, 4]);
    expect(scores.get(1)).toBeCloseTo(1 / 61 + 1 / 62, 6);
    expect(scores.get(4)).toBeCloseTo(1 / 63, 6);
  });
});

describe.each(bothTestDatabases)('knowledge bases on %s', (_name, open) => {
  let database: DbHandle;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(() => database.close());

  const actor = (userId: string) => ({ userId, isAdmin: false, groupIds: [] });

  it("lets a user manage their own bases and hides every other user's (NotFoundError)", async () => {
    const db = database.db;
    const owner = await newUser(db);
    const stranger = await newUser(db);
    const base = await createKnowledgeBase(db, owner, { name: ' Policies ', description: 'HR' });
    expect(base).toMatchObject({ name: 'Policies', description: 'HR', userId: owner });
    const ownerActor = actor(owner);
    const strangerActor = actor(stranger);
    expect((await listKnowledgeBases(db, ownerActor)).map((row) => row.id)).toEqual([base.id]);
    expect(await listKnowledgeBases(db, strangerActor)).toEqual([]);
    await expect(getKnowledgeBase(db, stranger, base.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(updateKnowledgeBase(db, strangerActor, base.id, { name: 'Mine' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteKnowledgeBase(db, strangerActor, base.id)).rejects.toBeInstanceOf(NotFoundError);
    // A rename keeps the description.
    expect((await updateKnowledgeBase(db, ownerActor, base.id, { name: 'HR policies' })).base).toMatchObject({ name: 'HR policies', description: 'HR' });
    await deleteKnowledgeBase(db, ownerActor, base.id);
    await expect(getKnowledgeBase(db, owner, base.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses images and binary files, and keeps a text file as processing until it is ingested', async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'Uploads' });
    const png = await acceptKnowledgeUpload(db, base.id, { name: 'a.png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]) });
    expect(png).toMatchObject({ ok: false, status: 415 });
    const binary = await acceptKnowledgeUpload(db, base.id, { name: 'a.bin', data: new Uint8Array([0, 1, 2, 3]) });
    expect(binary).toMatchObject({ ok: false, status: 415, message: expect.stringContaining('PDF files and UTF-8 text') });
    const tooBig = await acceptKnowledgeUpload(db, base.id, { name: 'big.txt', data: new TextEncoder().encode('a'.repeat(512 * 1024 + 1)) });
    expect(tooBig).toMatchObject({ ok: false, status: 413 });
    const file = await addFile(db, base.id, 'notes/handbook.md', HANDBOOK);
    expect(file).toMatchObject({ name: 'handbook.md', mediaType: 'text/markdown', status: 'processing', chunkCount: 0 });
    expect('data' in file).toBe(false);
  });

  it('ingests a Markdown file into chunks and finds the right passage by full-text search (English stems and Chinese)', async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'Handbook' });
    const file = await addFile(db, base.id, 'handbook.md', HANDBOOK);
    const outcome = await ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: true });
    expect(outcome).toMatchObject({ status: 'ready' });
    const [stored] = await listKnowledgeFiles(db, base.id);
    expect(stored).toMatchObject({ status: 'ready', error: null });
    expect(stored!.chunkCount).toBeGreaterThan(0);
    const [summary] = (await listKnowledgeBases(db, actor(base.userId))).filter((row) => row.id === base.id);
    expect(summary).toMatchObject({ fileCount: 1, chunkCount: stored!.chunkCount });

    const leave = await searchKnowledge(db, [base.id], 'how many days of leave', { topK: 3, appSecret: APP_SECRET });
    expect(leave.passages[0]).toMatchObject({ fileName: 'handbook.md', fileId: file.id });
    expect(leave.passages[0]!.text).toContain('25 days of annual leave');
    const chinese = await searchKnowledge(db, [base.id], '报销 发票', { topK: 3, appSecret: APP_SECRET });
    expect(chinese.passages[0]!.text).toContain('差旅报销');
    // Ingesting again replaces the chunks instead of adding to them.
    await ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: true });
    const chunks = await db.select().from(knowledgeChunks).where(eq(knowledgeChunks.fileId, file.id));
    expect(chunks).toHaveLength(stored!.chunkCount);
  });

  it('searches only the bases it is given', async () => {
    const db = database.db;
    const user = await newUser(db);
    const first = await createKnowledgeBase(db, user, { name: 'First' });
    const second = await createKnowledgeBase(db, user, { name: 'Second' });
    await ingestKnowledgeFile(db, (await addFile(db, first.id, 'a.txt', 'The cafeteria opens at eight.')).id, { appSecret: APP_SECRET, finalAttempt: true });
    await ingestKnowledgeFile(db, (await addFile(db, second.id, 'b.txt', 'The cafeteria closes at three.')).id, { appSecret: APP_SECRET, finalAttempt: true });
    const found = await searchKnowledge(db, [first.id], 'cafeteria', { topK: 5, appSecret: APP_SECRET });
    expect(found.passages.map((passage) => passage.fileName)).toEqual(['a.txt']);
    expect((await searchKnowledge(db, [], 'cafeteria', { topK: 5, appSecret: APP_SECRET })).passages).toEqual([]);
    // tsquery syntax and quotes in a query are words, never an error.
    const odd = await searchKnowledge(db, [first.id], "it's & | ! (cafeteria:* \\ 'open'", { topK: 5, appSecret: APP_SECRET });
    expect(odd.passages.map((passage) => passage.fileName)).toEqual(['a.txt']);
    expect((await searchKnowledge(db, [first.id], 'the and of', { topK: 5, appSecret: APP_SECRET })).passages).toEqual([]);
  });

  it('marks a damaged PDF and a PDF without text failed with the reason, and reads a good PDF page by page', async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'PDFs' });
    const damaged = await addFile(db, base.id, 'broken.pdf', new TextEncoder().encode('%PDF-1.4\nthis is not really a pdf'));
    expect(damaged.mediaType).toBe('application/pdf');
    expect(await ingestKnowledgeFile(db, damaged.id, { appSecret: APP_SECRET, finalAttempt: true })).toEqual({ status: 'failed', error: 'The PDF could not be read; it may be damaged' });
    const scan = await addFile(db, base.id, 'scan.pdf', pdfWithPages([null]));
    expect(await ingestKnowledgeFile(db, scan.id, { appSecret: APP_SECRET, finalAttempt: true })).toMatchObject({ status: 'failed', error: expect.stringContaining('no text') });
    const good = await addFile(db, base.id, 'manual.pdf', pdfWithPages(['Press the red button to stop the conveyor.']));
    expect(await ingestKnowledgeFile(db, good.id, { appSecret: APP_SECRET, finalAttempt: true })).toMatchObject({ status: 'ready' });
    const found = await searchKnowledge(db, [base.id], 'conveyor button', { topK: 1, appSecret: APP_SECRET });
    expect(found.passages[0]).toMatchObject({ fileName: 'manual.pdf', position: 0 });
    const files = await listKnowledgeFiles(db, base.id);
    expect(files.map((file) => [file.name, file.status])).toEqual([['broken.pdf', 'failed'], ['scan.pdf', 'failed'], ['manual.pdf', 'ready']]);
  });

  it("lets an admin attach only bases they own to a knowledge tool, and a run reads exactly the tool's bases", async () => {
    const db = database.db;
    const admin = await newUser(db, 'admin');
    const other = await newUser(db);
    const adminBase = await createKnowledgeBase(db, admin, { name: 'Shared policies' });
    const privateBase = await createKnowledgeBase(db, other, { name: 'Private notes' });
    await ingestKnowledgeFile(db, (await addFile(db, adminBase.id, 'policy.md', 'Expenses above 500 euros need a manager signature.')).id, { appSecret: APP_SECRET, finalAttempt: true });
    await ingestKnowledgeFile(db, (await addFile(db, privateBase.id, 'diary.md', 'My expenses this week were 20 euros.')).id, { appSecret: APP_SECRET, finalAttempt: true });
    const fields = { name: 'Policies', description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, type: 'knowledge' as const };

    const refused = createTool(db, { ...fields, slug: `kb_${Date.now().toString(36)}a`, config: { knowledgeBaseIds: [adminBase.id, privateBase.id] } }, { actorId: admin });
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toMatchObject({ issues: [{ path: ['config', 'knowledgeBaseIds', 1] }] });
    const tool = await createTool(db, { ...fields, slug: `kb_${Date.now().toString(36)}b`, config: { knowledgeBaseIds: [adminBase.id], topK: 3 } }, { actorId: admin });

    // The asking user's own base is not read: only what the tool names.
    const result = await knowledgeToolType.execute({ query: 'expenses euros' }, tool.config as never, {
      userId: other, runId: null, sessionId: null, toolCallId: null, signal: new AbortController().signal, allowPrivateNetworks: false,
      services: { db, appSecret: APP_SECRET },
    });
    expect(result.success).toBe(true);
    const text = String(result.data);
    expect(text).toContain('untrusted reference text');
    expect(text).toMatch(/<untrusted-content id="[0-9a-f]{12}">\n\[1\] file: policy\.md \(passage 1\)\nExpenses above 500 euros/);
    expect(text).not.toContain('diary.md');
    expect(result.metadata).toMatchObject({ passages: 1 });
    // The passage is the answer's source [1], with its base and file.
    expect(result.metadata.sources).toEqual([{ index: 1, kind: 'knowledge', title: 'policy.md', knowledgeBaseId: adminBase.id, fileId: expect.any(String), position: 0, snippet: 'Expenses above 500 euros need a manager signature.' }]);

    // In a run that already has sources, the passage continues the numbering, in the text and the sources alike.
    const later = await knowledgeToolType.execute({ query: 'expenses euros' }, tool.config as never, {
      userId: other, runId: null, sessionId: null, toolCallId: null, signal: new AbortController().signal, allowPrivateNetworks: false,
      services: { db, appSecret: APP_SECRET }, sources: { reserve: (count) => (count === 1 ? 4 : -1) },
    });
    expect(String(later.data)).toMatch(/\n\[4\] file: policy\.md \(passage 1\)\nExpenses above 500 euros/);
    expect(later.metadata.sources).toMatchObject([{ index: 4, title: 'policy.md' }]);
    // Nothing found takes no number.
    const none = await knowledgeToolType.execute({ query: 'zebra' }, tool.config as never, {
      userId: other, runId: null, sessionId: null, toolCallId: null, signal: new AbortController().signal, allowPrivateNetworks: false,
      services: { db, appSecret: APP_SECRET }, sources: { reserve: () => { throw new Error('reserved for nothing'); } },
    });
    expect(none).toMatchObject({ success: true, metadata: { passages: 0 } });
    expect(none.metadata.sources).toBeUndefined();
  });
});

describe('with an embedding model (PGlite)', () => {
  let database: DbHandle;
  let llm: FakeLlm;
  beforeAll(async () => {
    database = await openEmbeddedTestDb();
    llm = await startFakeLlm();
    await createModel(database.db, { name: 'Embeddings', baseUrl: llm.url, modelId: 'text-embedding-3-small', apiKey: 'sk-embed-secret', embedsText: true }, APP_SECRET);
  });
  afterAll(async () => {
    await database.close();
    await llm.close();
  });

  it('embeds the chunks in batches with the stored key and ranks by similarity fused with full-text', async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'Handbook' });
    const file = await addFile(db, base.id, 'handbook.md', HANDBOOK);
    llm.embeddings.length = 0;
    expect(await ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: true })).toMatchObject({ status: 'ready', embedded: true });
    expect(llm.embeddings).toHaveLength(1);
    expect(llm.embeddings[0]).toMatchObject({ model: 'text-embedding-3-small', authorization: 'Bearer sk-embed-secret' });
    const chunks = await db.select().from(knowledgeChunks).where(eq(knowledgeChunks.fileId, file.id));
    for (const chunk of chunks) expect(decodeVector(chunk.vector!)).toHaveLength(256);

    // "allowance" occurs nowhere, so full-text (every word must match) finds nothing: similarity still finds the leave passage.
    const found = await searchKnowledge(db, [base.id], 'annual leave allowance carry over', { topK: 2, appSecret: APP_SECRET });
    expect(found.mode).toBe('hybrid');
    expect(found.passages[0]!.text).toContain('25 days of annual leave');
  });

  it("fails a file, and searches by full-text, when the embedding model's key cannot be decrypted (APP_SECRET changed)", async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'Rotated' });
    const file = await addFile(db, base.id, 'a.md', 'Badges are renewed every January.');
    const otherSecret = 'another-app-secret-0123456789abcdef';
    expect(await ingestKnowledgeFile(db, file.id, { appSecret: otherSecret, finalAttempt: false })).toMatchObject({ status: 'failed', error: expect.stringContaining('cannot be decrypted') });
    await ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: true });
    const found = await searchKnowledge(db, [base.id], 'badges renewed', { topK: 1, appSecret: otherSecret });
    expect(found).toMatchObject({ mode: 'full-text', passages: [{ fileName: 'a.md' }] });
  });

  it('keeps the "Embeds text" flag on one model, and never on the default chat model', async () => {
    const db = database.db;
    const second = await createModel(db, { name: 'Embeddings 2', baseUrl: llm.url, modelId: 'other-embedder', embedsText: true }, APP_SECRET);
    expect((await db.select().from(llmModels).where(eq(llmModels.embedsText, true))).map((row) => row.id)).toEqual([second.id]);
    await expect(createModel(db, { name: 'Both', baseUrl: llm.url, modelId: 'x', embedsText: true, isDefault: true }, APP_SECRET)).rejects.toBeInstanceOf(InvalidInputError);
    await updateModel(db, second.id, { embedsText: false }, APP_SECRET);
    await db.update(llmModels).set({ embedsText: true }).where(eq(llmModels.modelId, 'text-embedding-3-small'));
  });

  it('retries a failed embedding call, and marks the file failed with the reason on the last attempt (no key in it)', async () => {
    const db = database.db;
    const base = await createKnowledgeBase(db, await newUser(db), { name: 'Outage' });
    const file = await addFile(db, base.id, 'a.md', 'Some text to embed.');
    llm.setEmbeddingError({ status: 503, message: 'model overloaded (key sk-embed-secret)' });
    try {
      await expect(ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: false })).rejects.toBeInstanceOf(EmbeddingFailedError);
      const outcome = await ingestKnowledgeFile(db, file.id, { appSecret: APP_SECRET, finalAttempt: true });
      expect(outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 503') });
      const [row] = await db.select().from(knowledgeFiles).where(eq(knowledgeFiles.id, file.id));
      expect(row!.error).not.toContain('sk-embed-secret');
      // Search still answers, from full-text alone, while the model is down.
      const found = await searchKnowledge(db, [base.id], 'text', { topK: 2, appSecret: APP_SECRET });
      expect(found.mode).toBe('full-text');
    } finally {
      llm.setEmbeddingError(null);
    }
  });
});
