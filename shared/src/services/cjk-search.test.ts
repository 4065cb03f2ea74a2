import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { createDocument, listDocuments, searchDocuments, type DocumentActor } from './documents';
import { cjkTerms, highlightSnippet } from './cjk-search';

describe('cjkTerms and highlightSnippet', () => {
  it('keeps CJK words and phrases, drops excluded ones, Latin words and punctuation', () => {
    expect(cjkTerms('会议纪要 "项目 进度" budget -预算 or 会议，讨论')).toEqual(['会议纪要', '项目', '进度', '会议', '讨论']);
    expect(cjkTerms('meeting notes')).toEqual([]);
  });

  it('cuts a short snippet around the first hit and marks every hit', () => {
    const text = `${'前言。'.repeat(40)}本周会议纪要：讨论了项目进度，项目进度正常。`;
    const snippet = highlightSnippet(text, ['项目进度'])!;
    expect(snippet.startsWith('… ')).toBe(true);
    expect(snippet.match(/\*\*项目进度\*\*/g)).toHaveLength(2);
    expect(snippet.length).toBeLessThan(200);
    expect(highlightSnippet(text, ['预算'])).toBeNull();
  });
});

// The same search on the server database and on the embedded one (the all-in-one `npm start`).
describe.each(bothTestDatabases)('CJK document search on %s', (_name, open) => {
  let database: DbHandle;
  let owner: DocumentActor;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await open();
    const newUser = async () => {
      const id = newId('user');
      await database.db.insert(users).values({ id, email: `${id}@test.local`, name: 'Searcher', passwordHash: 'x' });
      return { userId: id };
    };
    owner = await newUser();
    const stranger = await newUser();
    await createDocument(database.db, stranger, { type: 'memory', title: '别人的会议纪要', content: '会议纪要 项目进度' });
    ids.minutes = (await createDocument(database.db, owner, { type: 'memory', title: '周报', content: '本周会议纪要：讨论了项目进度，决定下周发布。' })).id;
    ids.titled = (await createDocument(database.db, owner, { type: 'document', title: '会议纪要模板', content: '每次会议纪要都写清楚结论和负责人。' })).id;
    ids.english = (await createDocument(database.db, owner, { type: 'memory', title: 'Budget meeting', content: 'The meeting approved the budget.' })).id;
  }, 120_000);
  afterAll(() => database?.close());

  it('finds 会议纪要 and 项目进度 inside a sentence, ranked, with highlighted snippets, never another user', async () => {
    const minutes = await searchDocuments(database.db, owner, { q: '会议纪要' });
    expect(minutes.total).toBe(2);
    // The title hit ranks first.
    expect(minutes.items.map((hit) => hit.id)).toEqual([ids.titled, ids.minutes]);
    expect(minutes.items[0]!.rank).toBeGreaterThan(minutes.items[1]!.rank);
    expect(minutes.items[1]!.snippet).toContain('本周**会议纪要**：讨论了项目进度');

    const progress = await searchDocuments(database.db, owner, { q: '项目进度' });
    expect(progress.items.map((hit) => hit.id)).toEqual([ids.minutes]);
    expect(progress.items[0]!.snippet).toContain('**项目进度**');

    expect((await searchDocuments(database.db, owner, { q: '会议纪要 项目进度' })).items.map((hit) => hit.id)).toEqual([ids.minutes]);
    expect((await searchDocuments(database.db, owner, { q: '预算' })).total).toBe(0);
    expect((await listDocuments(database.db, owner, { q: '项目进度' })).items.map((item) => item.id)).toEqual([ids.minutes]);
  });

  it('keeps stemmed English search beside it', async () => {
    const hits = await searchDocuments(database.db, owner, { q: 'meetings' });
    expect(hits.items.map((hit) => hit.id)).toEqual([ids.english]);
    expect(hits.items[0]!.snippet).toContain('**meeting**');
  });
});
