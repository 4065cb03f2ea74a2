import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { llmModels, messages, runs, users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { createChatSession, startChatRun } from './chat';
import { searchChatSessions } from './chat-search';
import { highlightSegments, highlightSnippet, searchTerms } from './text-search';

describe('text-search helpers', () => {
  it('splits terms, drops operators and quotes', () => {
    expect(searchTerms('  "Meeting notes" -draft OR 会议纪要 ')).toEqual(['meeting', 'notes', 'draft', '会议纪要']);
  });

  it('highlights CJK substrings and English words by stem, as plain segments', () => {
    expect(highlightSegments('本周会议纪要：讨论', ['会议纪要'])).toEqual([
      { text: '本周', match: false },
      { text: '会议纪要', match: true },
      { text: '：讨论', match: false },
    ]);
    expect(highlightSegments('Two Meetings <b>today</b>', ['meeting']).filter((segment) => segment.match)).toEqual([{ text: 'Meetings', match: true }]);
    const snippet = highlightSnippet(`${'x '.repeat(100)}found it${' y'.repeat(200)}`, ['found'], 10)!;
    expect(snippet[0]!.text.startsWith('…')).toBe(true);
    expect(snippet.at(-1)!.text.endsWith('…')).toBe(true);
    expect(highlightSnippet('nothing here', ['zebra'])).toBeUndefined();
  });
});

// The same search on both databases the product runs on.
describe.each(bothTestDatabases)('session search on %s', (_name, open) => {
  let database: DbHandle;
  beforeAll(async () => {
    database = await open();
    // PGlite runs every migration in WebAssembly: slow on a busy machine.
  }, 240_000);
  afterAll(() => database.close());

  async function conversation(userId: string, question: string, reply: string) {
    const session = await createChatSession(database.db, userId, {});
    const { run } = await startChatRun(database.db, { userId, session, input: { content: question, enableTools: true, enableThinking: false } });
    await database.db.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text: reply }], runId: run.id });
    await database.db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, run.id));
    return session;
  }

  it('finds 会议纪要 and 项目进度 inside a sentence, English by stem, and only the user\'s own sessions', async () => {
    const owner = newId('user');
    const other = newId('user');
    await database.db.insert(users).values([
      { id: owner, email: `${owner}@test.local`, name: 'owner', passwordHash: 'x' },
      { id: other, email: `${other}@test.local`, name: 'other', passwordHash: 'x' },
    ]);
    const [model] = await database.db.select().from(llmModels).limit(1);
    if (!model) await database.db.insert(llmModels).values({ id: newId('model'), name: 'search test', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });

    const notes = await conversation(owner, '帮我整理一下', '本周会议纪要：讨论了项目进度，下周继续。');
    const english = await conversation(owner, 'Summarise the meetings of this week', 'There were three meetings.');
    await conversation(other, '会议纪要', 'meeting');

    const cjk = await searchChatSessions(database.db, owner, { q: '会议纪要' });
    expect(cjk.map((hit) => hit.session.id)).toEqual([notes.id]);
    expect(cjk[0]!.message!.snippet.filter((segment) => segment.match).map((segment) => segment.text)).toEqual(['会议纪要']);
    expect((await searchChatSessions(database.db, owner, { q: '项目进度' })).map((hit) => hit.session.id)).toEqual([notes.id]);

    const stemmed = await searchChatSessions(database.db, owner, { q: 'meeting' });
    expect(stemmed.map((hit) => hit.session.id)).toEqual([english.id]);
    expect(stemmed[0]!.title.some((segment) => segment.match)).toBe(true);
    expect(await searchChatSessions(database.db, owner, { q: '不存在的词' })).toEqual([]);
  });
});
