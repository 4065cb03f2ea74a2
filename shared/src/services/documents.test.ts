import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { agentDocumentRevisions, agentDocuments, users } from '../db/schema';
import { newId } from '../ids';
import { openTestDb } from '../testing';
import {
  createDocument,
  deleteDocument,
  DocumentNotFoundError,
  DocumentRevisionNotFoundError,
  DocumentVersionConflictError,
  getDocument,
  insertIntoDocument,
  listDocumentRevisions,
  listDocuments,
  normalizeTags,
  readDocumentLines,
  replaceInDocument,
  restoreDocumentRevision,
  searchDocuments,
  splitLines,
  summarizeContent,
  toDocumentView,
  updateDocument,
  type DocumentActor,
} from './documents';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';

let database: DbHandle;

beforeAll(async () => {
  database = await openTestDb();
});
afterAll(() => database.close());

async function newUser(): Promise<DocumentActor> {
  const id = newId('user');
  await database.db.insert(users).values({ id, email: `${id}@test.local`, name: 'documents', passwordHash: 'x' });
  return { userId: id };
}

/** Every row of a document and its revisions, to prove a refused call changed nothing. */
async function snapshot(id: string) {
  const documents = await database.db.select().from(agentDocuments).where(eq(agentDocuments.id, id));
  const revisions = await database.db.select().from(agentDocumentRevisions).where(eq(agentDocumentRevisions.documentId, id)).orderBy(agentDocumentRevisions.version);
  return { documents, revisions };
}

describe('helpers', () => {
  it('cuts a one-line summary to the length, marking the cut', () => {
    expect(summarizeContent('# Title\n\nShort   body.', 200)).toBe('Title Short body.');
    const cut = summarizeContent('word '.repeat(100), 20);
    expect(Array.from(cut)).toHaveLength(20);
    expect(cut.endsWith('…')).toBe(true);
    // Cuts by characters, never inside a surrogate pair.
    expect(summarizeContent('😀'.repeat(10), 5)).toBe('😀😀😀😀…');
  });

  it('normalizes tags from a string or a list', () => {
    expect(normalizeTags(' a, b ,,A, c ')).toBe('a, b, c');
    expect(normalizeTags(['x', 'y', 'x'])).toBe('x, y');
    expect(normalizeTags('')).toBeNull();
    expect(normalizeTags(undefined)).toBeNull();
    expect(() => normalizeTags(Array.from({ length: 40 }, (_, index) => `tag-number-${index}-long`))).toThrow(InvalidInputError);
  });

  it('splits lines without an empty last line for a final newline', () => {
    expect(splitLines('')).toEqual({ lines: [], trailingNewline: false });
    expect(splitLines('a\nb\n')).toEqual({ lines: ['a', 'b'], trailingNewline: true });
    expect(splitLines('a\n\nb')).toEqual({ lines: ['a', '', 'b'], trailingNewline: false });
  });
});

describe('create and get', () => {
  it('creates version 1 with a revision, a cut summary and normalized tags; the session comes only from the actor', async () => {
    const owner = await newUser();
    const runId = newId('run');
    const document = await createDocument(database.db, { ...owner, runId, sessionId: 'cs_test' }, {
      type: 'memory',
      title: '  Favourite colour ',
      content: `The user's favourite colour is teal. ${'More details follow. '.repeat(30)}`,
      tags: 'prefs, colour',
    });
    expect(document).toMatchObject({ userId: owner.userId, sessionId: 'cs_test', type: 'memory', title: 'Favourite colour', version: 1, tags: 'prefs, colour' });
    expect(document.id).toMatch(/^ad_[0-9a-z]+_[0-9a-f]+$/);
    expect(Array.from(document.summary!)).toHaveLength(200);
    expect(document.summary!.startsWith("The user's favourite colour is teal.")).toBe(true);

    const [revision] = await listDocumentRevisions(database.db, owner, document.id);
    expect(revision).toMatchObject({ documentId: document.id, version: 1, title: 'Favourite colour', content: document.content, summary: document.summary, tags: 'prefs, colour', createdByUserId: owner.userId, createdByRunId: runId });
    expect(revision!.createdAt).toBeInstanceOf(Date);

    expect(await getDocument(database.db, owner, document.id)).toEqual(document);
    expect(toDocumentView(document)).not.toHaveProperty('sessionId');
  });

  it('keeps a given summary, defaults the type to document, and uses the configured summary length', async () => {
    const owner = await newUser();
    const given = await createDocument(database.db, owner, { title: 'Report', content: 'Long body', summary: 'A weekly report.' });
    expect(given).toMatchObject({ type: 'document', summary: 'A weekly report.', sessionId: null, tags: null });
    const short = await createDocument(database.db, owner, { title: 'Short', content: 'abcdefghijklmnopqrstuvwxyz' }, { maxContentLength: 100, defaultSummaryLength: 10 });
    expect(short.summary).toBe('abcdefghi…');
  });

  it('refuses content over the maximum length and an empty title, storing nothing', async () => {
    const owner = await newUser();
    const tooLong = createDocument(database.db, owner, { title: 'Big', content: 'x'.repeat(101) }, { maxContentLength: 100, defaultSummaryLength: 200 });
    await expect(tooLong).rejects.toThrow(InvalidInputError);
    await expect(tooLong).rejects.toThrow(/exceeds the maximum length: it is 101 characters, the limit is 100/);
    await expect(createDocument(database.db, owner, { title: '   ', content: 'x' })).rejects.toThrow(/title must not be empty/);
    expect((await listDocuments(database.db, owner)).total).toBe(0);
  });

  it("answers another user's document exactly like a missing one", async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Secret', content: 'x' });
    const foreign = getDocument(database.db, stranger, document.id);
    await expect(foreign).rejects.toThrow(DocumentNotFoundError);
    await expect(foreign).rejects.toThrow(`Document ${document.id} not found or no access`);
    await expect(getDocument(database.db, stranger, 'ad_missing')).rejects.toThrow('Document ad_missing not found or no access');
    await expect(getDocument(database.db, { userId: '' }, document.id)).rejects.toThrow(/acting user/);
  });
});

describe('list and search', () => {
  let owner: DocumentActor;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    owner = await newUser();
    const stranger = await newUser();
    await createDocument(database.db, stranger, { type: 'memory', title: 'Budget meeting of the stranger', content: 'budget budget budget' });
    for (const [key, input] of Object.entries({
      mention: { type: 'document' as const, title: 'Quarterly report', content: `Sales went up. ${'Filler text about many other things. '.repeat(20)}The budget was mentioned once.` },
      meeting: { type: 'memory' as const, title: 'Budget meeting notes', content: 'We agreed the budget for the budget meeting: the marketing budget doubles.', tags: 'budget' },
      unrelated: { type: 'memory' as const, title: 'Favourite colour', content: 'Teal.' },
    })) {
      ids[key] = (await createDocument(database.db, owner, input)).id;
    }
  });

  it('lists without content, newest update first, filtered by type and paginated', async () => {
    const all = await listDocuments(database.db, owner);
    expect(all.total).toBe(3);
    expect(all.items.map((item) => item.id)).toEqual([ids.unrelated, ids.meeting, ids.mention]);
    expect(all.items[0]).not.toHaveProperty('content');
    expect(all.items[0]).not.toHaveProperty('sessionId');
    expect(all.nextOffset).toBeNull();

    const memories = await listDocuments(database.db, owner, { type: 'memory' });
    expect(memories.items.map((item) => item.type)).toEqual(['memory', 'memory']);

    const first = await listDocuments(database.db, owner, { limit: 2 });
    expect(first).toMatchObject({ total: 3, nextOffset: 2 });
    const second = await listDocuments(database.db, owner, { limit: 2, offset: first.nextOffset! });
    expect(second.items.map((item) => item.id)).toEqual([ids.mention]);
    expect(second.nextOffset).toBeNull();

    await updateDocument(database.db, owner, ids.mention!, { title: 'Quarterly report (final)' });
    expect((await listDocuments(database.db, owner)).items[0]!.id).toBe(ids.mention);
  });

  it('filters with stemmed full-text search, never LIKE, and never shows other users', async () => {
    // "meetings" finds "meeting"; "colours" finds "colour".
    expect((await listDocuments(database.db, owner, { q: 'meetings' })).items.map((item) => item.id)).toEqual([ids.meeting]);
    expect((await listDocuments(database.db, owner, { q: 'colours' })).items.map((item) => item.id)).toEqual([ids.unrelated]);
    // A substring is not a word match.
    expect((await listDocuments(database.db, owner, { q: 'udge' })).total).toBe(0);
    expect((await listDocuments(database.db, owner, { q: 'budget', type: 'document' })).items.map((item) => item.id)).toEqual([ids.mention]);
    expect((await listDocuments(database.db, owner, { q: 'stranger' })).total).toBe(0);
  });

  it('ranks the more relevant document first, with short highlighted snippets', async () => {
    const result = await searchDocuments(database.db, owner, { q: 'budget' });
    expect(result.total).toBe(2);
    expect(result.items.map((hit) => hit.id)).toEqual([ids.meeting, ids.mention]);
    expect(result.items[0]!.rank).toBeGreaterThan(result.items[1]!.rank);
    expect(result.items[1]!.snippet).toContain('**budget**');
    expect(result.items[1]!.snippet.length).toBeLessThan(400);
    expect(result.items[0]).not.toHaveProperty('content');

    const paged = await searchDocuments(database.db, owner, { q: 'budget', limit: 1 });
    expect(paged).toMatchObject({ total: 2, nextOffset: 1 });
    expect((await searchDocuments(database.db, owner, { q: 'budget', limit: 1, offset: 1 })).items[0]!.id).toBe(ids.mention);
    expect((await searchDocuments(database.db, owner, { q: '"marketing budget" -sales' })).items.map((hit) => hit.id)).toEqual([ids.meeting]);
    // Stop words only: nothing to match, no error.
    expect((await searchDocuments(database.db, owner, { q: 'the' })).total).toBe(0);
    await expect(searchDocuments(database.db, owner, { q: ' ' })).rejects.toThrow(InvalidInputError);
  });
});

describe('update, versions and revisions', () => {
  it('updates fields, bumps the version and records each version; a content change re-cuts the summary', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Plan', content: 'First plan.', summary: 'Custom summary' });
    const renamed = await updateDocument(database.db, owner, document.id, { title: 'Plan v2', tags: ['a', 'b'] });
    expect(renamed).toMatchObject({ title: 'Plan v2', version: 2, summary: 'Custom summary', tags: 'a, b', content: 'First plan.' });
    expect(renamed.updatedAt.getTime()).toBeGreaterThanOrEqual(document.updatedAt.getTime());
    const rewritten = await updateDocument(database.db, owner, document.id, { content: 'Second plan.', tags: null });
    expect(rewritten).toMatchObject({ version: 3, content: 'Second plan.', summary: 'Second plan.', tags: null });
    const summarized = await updateDocument(database.db, owner, document.id, { summary: 'New summary' });
    expect(summarized).toMatchObject({ version: 4, summary: 'New summary' });
    // Nothing to change: no new version.
    expect(await updateDocument(database.db, owner, document.id, {})).toMatchObject({ version: 4 });

    const revisions = await listDocumentRevisions(database.db, owner, document.id);
    expect(revisions.map((revision) => revision.version)).toEqual([4, 3, 2, 1]);
    expect(revisions.map((revision) => revision.title)).toEqual(['Plan v2', 'Plan v2', 'Plan v2', 'Plan']);
    expect(revisions[1]).toMatchObject({ content: 'Second plan.', tags: null, createdByUserId: owner.userId, createdByRunId: null });
  });

  it('refuses a stale expectedVersion with a conflict and changes nothing', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Shared', content: 'v1' });
    await updateDocument(database.db, owner, document.id, { content: 'v2', expectedVersion: 1 });
    const before = await snapshot(document.id);
    const stale = updateDocument(database.db, owner, document.id, { content: 'lost update', expectedVersion: 1 });
    await expect(stale).rejects.toThrow(DocumentVersionConflictError);
    await expect(stale).rejects.toThrow(ConflictError);
    await expect(stale).rejects.toThrow(/at version 2, not the expected version 1/);
    await stale.catch((error: ConflictError) => expect(error.details).toMatchObject({ expectedVersion: 1, currentVersion: 2 }));
    expect(await snapshot(document.id)).toEqual(before);
  });

  it('serializes concurrent edits: no lost update', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Log', content: 'start\n' });
    await Promise.all(Array.from({ length: 5 }, (_, index) => insertIntoDocument(database.db, owner, document.id, { line: 1, text: `entry ${index}` })));
    const final = await getDocument(database.db, owner, document.id);
    expect(final.version).toBe(6);
    for (let index = 0; index < 5; index++) expect(final.content).toContain(`entry ${index}`);
    expect((await listDocumentRevisions(database.db, owner, document.id)).map((revision) => revision.version)).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it('restores an earlier revision as a new version', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Spec', content: 'Original text.', tags: 'x' });
    await updateDocument(database.db, owner, document.id, { title: 'Spec (edited)', content: 'Edited text.', tags: 'y' });
    await updateDocument(database.db, owner, document.id, { content: 'Edited again.' });
    const restored = await restoreDocumentRevision(database.db, { ...owner, runId: 'run_restore' }, document.id, 1);
    expect(restored).toMatchObject({ version: 4, title: 'Spec', content: 'Original text.', tags: 'x', summary: document.summary });
    const [latest] = await listDocumentRevisions(database.db, owner, document.id);
    expect(latest).toMatchObject({ version: 4, content: 'Original text.', createdByRunId: 'run_restore' });

    const missing = restoreDocumentRevision(database.db, owner, document.id, 9);
    await expect(missing).rejects.toThrow(DocumentRevisionNotFoundError);
    await expect(missing).rejects.toThrow(`Document ${document.id} has no version 9 (its versions are 1 to 4)`);
    await expect(restoreDocumentRevision(database.db, owner, document.id, 4, { expectedVersion: 3 })).rejects.toThrow(DocumentVersionConflictError);
  });

  it('deletes a document with its revisions', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Temp', content: 'x' });
    expect(await deleteDocument(database.db, owner, document.id)).toMatchObject({ id: document.id, title: 'Temp' });
    expect(await snapshot(document.id)).toEqual({ documents: [], revisions: [] });
    await expect(deleteDocument(database.db, owner, document.id)).rejects.toThrow(DocumentNotFoundError);
  });
});

describe('targeted edits and line views', () => {
  it('replaces exactly one match and says how many there were otherwise', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Notes', content: 'alpha beta\nbeta gamma\nbeta delta\nprice: $5' });
    const replaced = await replaceInDocument(database.db, owner, document.id, { oldText: 'alpha beta', newText: 'ALPHA $& $1' });
    expect(replaced).toMatchObject({ version: 2, content: 'ALPHA $& $1\nbeta gamma\nbeta delta\nprice: $5' });

    const before = await snapshot(document.id);
    await expect(replaceInDocument(database.db, owner, document.id, { oldText: 'omega', newText: 'x' })).rejects.toThrow(/not found in document .* \(0 matches\)/);
    await expect(replaceInDocument(database.db, owner, document.id, { oldText: 'a', newText: 'x' })).rejects.toThrow(/occurs \d+ times .* it must match exactly once/);
    const twice = await replaceInDocument(database.db, owner, document.id, { oldText: 'beta', newText: 'x' }).catch((error: InvalidInputError) => error);
    expect(twice).toBeInstanceOf(InvalidInputError);
    expect((twice as InvalidInputError).message).toMatch(/occurs 2 times .*\(2 matches\)/);
    await expect(replaceInDocument(database.db, owner, document.id, { oldText: '', newText: 'x' })).rejects.toThrow(/must not be empty/);
    expect(await snapshot(document.id)).toEqual(before);
  });

  it('inserts text after a line number, keeping a final newline', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'List', content: 'one\ntwo\n' });
    expect((await insertIntoDocument(database.db, owner, document.id, { line: 0, text: 'zero' })).content).toBe('zero\none\ntwo\n');
    expect((await insertIntoDocument(database.db, owner, document.id, { line: 2, text: 'one and a half\n' })).content).toBe('zero\none\none and a half\ntwo\n');
    expect((await insertIntoDocument(database.db, owner, document.id, { line: 4, text: 'three\nfour' })).content).toBe('zero\none\none and a half\ntwo\nthree\nfour\n');
    await expect(insertIntoDocument(database.db, owner, document.id, { line: 7, text: 'x' })).rejects.toThrow(/Line 7 is past the end: .* has 6 lines/);
    const empty = await createDocument(database.db, owner, { title: 'Empty', content: '' });
    expect((await insertIntoDocument(database.db, owner, empty.id, { line: 0, text: 'first' })).content).toBe('first');
    await expect(
      insertIntoDocument(database.db, owner, document.id, { line: 0, text: 'x'.repeat(200) }, { maxContentLength: 100, defaultSummaryLength: 50 }),
    ).rejects.toThrow(/exceeds the maximum length/);
  });

  it('reads a line range, clamping the end', async () => {
    const owner = await newUser();
    const document = await createDocument(database.db, owner, { title: 'Lines', content: 'l1\nl2\nl3\nl4\n' });
    const view = await readDocumentLines(database.db, owner, document.id, { startLine: 2, endLine: 3 });
    expect(view).toMatchObject({ startLine: 2, endLine: 3, totalLines: 4, lines: ['l2', 'l3'] });
    expect(view.document).not.toHaveProperty('content');
    expect(await readDocumentLines(database.db, owner, document.id, { startLine: 3, endLine: 99 })).toMatchObject({ endLine: 4, lines: ['l3', 'l4'] });
    expect((await readDocumentLines(database.db, owner, document.id)).lines).toHaveLength(4);
    await expect(readDocumentLines(database.db, owner, document.id, { startLine: 5 })).rejects.toThrow(/startLine 5 is past the end/);
    await expect(readDocumentLines(database.db, owner, document.id, { startLine: 3, endLine: 2 })).rejects.toThrow(/endLine must be at least startLine/);
  });
});

describe('isolation', () => {
  it("every function given another user's document id answers not found and changes nothing", async () => {
    const owner = await newUser();
    const stranger: DocumentActor = { ...(await newUser()), runId: 'run_stranger', sessionId: 'cs_stranger' };
    const document = await createDocument(database.db, owner, { title: 'Private', content: 'line one\nline two', tags: 'private' });
    await updateDocument(database.db, owner, document.id, { content: 'line one\nline two\nline three' });
    const before = await snapshot(document.id);
    const attempts: [string, () => Promise<unknown>][] = [
      ['get', () => getDocument(database.db, stranger, document.id)],
      ['update', () => updateDocument(database.db, stranger, document.id, { title: 'pwned' })],
      ['update with version', () => updateDocument(database.db, stranger, document.id, { title: 'pwned', expectedVersion: 2 })],
      ['delete', () => deleteDocument(database.db, stranger, document.id)],
      ['str_replace', () => replaceInDocument(database.db, stranger, document.id, { oldText: 'line one', newText: 'pwned' })],
      ['insert', () => insertIntoDocument(database.db, stranger, document.id, { line: 0, text: 'pwned' })],
      ['read lines', () => readDocumentLines(database.db, stranger, document.id, { startLine: 1 })],
      ['revisions', () => listDocumentRevisions(database.db, stranger, document.id)],
      ['restore', () => restoreDocumentRevision(database.db, stranger, document.id, 1)],
    ];
    for (const [label, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, label).toBeInstanceOf(NotFoundError);
      expect((error as Error).message, label).toBe(`Document ${document.id} not found or no access`);
    }
    expect((await listDocuments(database.db, stranger)).total).toBe(0);
    expect((await searchDocuments(database.db, stranger, { q: 'private' })).total).toBe(0);
    expect(await snapshot(document.id)).toEqual(before);
    const strangerRows = await database.db.select().from(agentDocuments).where(inArray(agentDocuments.userId, [stranger.userId]));
    expect(strangerRows).toHaveLength(0);
  });
});
