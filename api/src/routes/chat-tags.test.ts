import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
const statements: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ configCache: true, onStatement: (statement) => statements.push(statement) });
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
type Tag = { name: string; chatCount: number };
const request = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });
const tagList = async (account: Account) => ((await (await request('GET', '/api/tags', account)).json()) as { items: Tag[] }).items.map(({ name, chatCount }) => [name, chatCount]);
const listed = async (account: Account, query: string) =>
  ((await (await request('GET', `/api/sessions?${query}`, account)).json()) as { items: { title: string; tags: string[] }[] }).items.map((session) => [session.title, session.tags]).sort();
const found = async (account: Account, q: string) =>
  ((await (await request('GET', `/api/sessions/search?q=${encodeURIComponent(q)}`, account)).json()) as { items: { session: { title: string }; tags: string[] }[] }).items.map((hit) => [hit.session.title, hit.tags]);

async function newChat(account: Account, title: string, extra: Record<string, unknown> = {}) {
  const response = await request('POST', '/api/sessions', account, { title, ...extra });
  expect(response.status).toBe(201);
  const chat = (await response.json()) as { id: string; tags: string[] };
  expect(chat.tags).toEqual([]);
  return chat;
}

async function tag(account: Account, chat: { id: string }, tags: unknown) {
  const response = await request('PUT', `/api/sessions/${chat.id}/tags`, account, { tags });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { tags: string[] }).tags;
}

describe('chat tags', () => {
  it('tags chats: names are the same tag in any case (spelled as first typed), lists and the chat carry them, and ?tag= filters', async () => {
    const alice = await t.signUp();
    const budget = await newChat(alice, 'Budget');
    const lyon = await newChat(alice, 'Lyon');
    await newChat(alice, 'Loose');

    expect(await tag(alice, budget, ['  Work ', 'to   read', 'work'])).toEqual(['to read', 'Work']);
    expect(await tag(alice, lyon, ['WORK', 'Trips'])).toEqual(['Trips', 'Work']);
    expect(await tagList(alice)).toEqual([['to read', 1], ['Trips', 1], ['Work', 2]]);

    expect(await listed(alice, '')).toEqual([['Budget', ['to read', 'Work']], ['Loose', []], ['Lyon', ['Trips', 'Work']]]);
    expect(await listed(alice, 'tag=wOrK')).toEqual([['Budget', ['to read', 'Work']], ['Lyon', ['Trips', 'Work']]]);
    expect(await listed(alice, `tag=${encodeURIComponent('To Read')}`)).toEqual([['Budget', ['to read', 'Work']]]);
    expect(await listed(alice, 'tag=nothing')).toEqual([]);
    expect(await (await request('GET', `/api/sessions/${lyon.id}`, alice)).json()).toMatchObject({ title: 'Lyon', tags: ['Trips', 'Work'] });

    // Replacing: a tag no chat carries any more leaves the list.
    expect(await tag(alice, lyon, ['work'])).toEqual(['Work']);
    expect(await tagList(alice)).toEqual([['to read', 1], ['Work', 2]]);
    expect(await tag(alice, budget, [])).toEqual([]);
    expect(await tagList(alice)).toEqual([['Work', 1]]);
  });

  it('finds tagged chats in the search with tag:name, alone or beside words', async () => {
    const alice = await t.signUp();
    const plans = await newChat(alice, 'Holiday plans');
    const notes = await newChat(alice, 'Meeting notes');
    await newChat(alice, 'Other plans');
    await tag(alice, plans, ['Trips', 'To read']);
    await tag(alice, notes, ['to read']);

    expect(await found(alice, 'tag:trips')).toEqual([['Holiday plans', ['To read', 'Trips']]]);
    expect((await found(alice, 'tag:"to read"')).map(([title]) => title).sort()).toEqual(['Holiday plans', 'Meeting notes']);
    expect(await found(alice, 'plans tag:"TO READ"')).toEqual([['Holiday plans', ['To read', 'Trips']]]);
    expect(await found(alice, 'tag:"to read" tag:trips')).toEqual([['Holiday plans', ['To read', 'Trips']]]);
    expect(await found(alice, 'tag:unknown')).toEqual([]);
    // Words alone still find every chat, each hit with its tags.
    expect((await found(alice, 'plans')).sort()).toEqual([['Holiday plans', ['To read', 'Trips']], ['Other plans', []]]);
  });

  it('keeps the tags of an archived chat, and a deleted chat takes its tags out of the list', async () => {
    const alice = await t.signUp();
    const old = await newChat(alice, 'Old');
    const gone = await newChat(alice, 'Gone');
    await tag(alice, old, ['Keep']);
    await tag(alice, gone, ['Drop']);

    // A change answers the chat as the list shows it, tags included.
    const archived = await request('PATCH', `/api/sessions/${old.id}`, alice, { archived: true });
    expect(archived.status).toBe(200);
    expect(((await archived.json()) as { tags: string[]; archivedAt: string | null })).toMatchObject({ tags: ['Keep'], archivedAt: expect.any(String) });
    expect(await listed(alice, 'archived=true&tag=keep')).toEqual([['Old', ['Keep']]]);
    expect(await listed(alice, 'tag=keep')).toEqual([]);

    expect((await request('DELETE', `/api/sessions/${gone.id}`, alice)).status).toBe(204);
    expect(await tagList(alice)).toEqual([['Keep', 1]]);
    // The dead tag's spelling is not kept either: typed again, the new one counts.
    const fresh = await newChat(alice, 'Fresh');
    expect(await tag(alice, fresh, ['DROP'])).toEqual(['DROP']);
  });

  it('renames a tag on every chat, merges into a tag of the new name, and deletes a tag from every chat', async () => {
    const alice = await t.signUp();
    const one = await newChat(alice, 'One');
    const two = await newChat(alice, 'Two');
    await tag(alice, one, ['Work', 'Office']);
    await tag(alice, two, ['work']);

    const renamed = await request('PATCH', '/api/tags/WORK', alice, { name: ' Job ' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ name: 'Job', chatCount: 2 });
    expect(await listed(alice, '')).toEqual([['One', ['Job', 'Office']], ['Two', ['Job']]]);

    // Only the case changes: the same tag.
    expect(await (await request('PATCH', '/api/tags/job', alice, { name: 'JOB' })).json()).toEqual({ name: 'JOB', chatCount: 2 });

    // Into an existing tag: its chats get it once, spelled as it is.
    const merged = await request('PATCH', '/api/tags/job', alice, { name: 'office' });
    expect(await merged.json()).toEqual({ name: 'Office', chatCount: 2 });
    expect(await listed(alice, '')).toEqual([['One', ['Office']], ['Two', ['Office']]]);
    expect(await tagList(alice)).toEqual([['Office', 2]]);

    expect((await request('DELETE', `/api/tags/${encodeURIComponent('OFFICE')}`, alice)).status).toBe(204);
    expect(await listed(alice, '')).toEqual([['One', []], ['Two', []]]);
    expect(await tagList(alice)).toEqual([]);

    // A name with a slash or spaces, encoded in the path.
    await tag(alice, two, ['Q3/Q4 plans']);
    expect(await (await request('PATCH', `/api/tags/${encodeURIComponent('q3/q4 PLANS')}`, alice, { name: 'Q3/Q4' })).json()).toEqual({ name: 'Q3/Q4', chatCount: 1 });
    expect((await request('DELETE', `/api/tags/${encodeURIComponent('Q3/Q4')}`, alice)).status).toBe(204);

    expect((await request('PATCH', '/api/tags/nothing', alice, { name: 'x' })).status).toBe(404);
    expect((await request('DELETE', '/api/tags/nothing', alice)).status).toBe(404);
    await tag(alice, one, ['Named']);
    const bad = await request('PATCH', '/api/tags/named', alice, { name: '  ' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues[0].path).toEqual(['name']);
  });

  it('keeps tags to their owner: another user cannot tag, see, filter by, rename or delete them', async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const secret = await newChat(alice, 'Secret');
    await tag(alice, secret, ['Private']);
    const bobChat = await newChat(bob, 'Mine');

    expect((await request('PUT', `/api/sessions/${secret.id}/tags`, bob, { tags: ['Mine'] })).status).toBe(404);
    expect(await tagList(bob)).toEqual([]);
    expect(await listed(bob, 'tag=private')).toEqual([]);
    expect(await found(bob, 'tag:private')).toEqual([]);
    expect((await request('PATCH', '/api/tags/private', bob, { name: 'Stolen' })).status).toBe(404);
    expect((await request('DELETE', '/api/tags/private', bob)).status).toBe(404);

    // Bob's tag of the same name is his own.
    await tag(bob, bobChat, ['private']);
    expect(await tagList(bob)).toEqual([['private', 1]]);
    expect(await tagList(alice)).toEqual([['Private', 1]]);
    expect(await listed(alice, 'tag=private')).toEqual([['Secret', ['Private']]]);
  });

  it('refuses bad tags with 400s naming them, more than 10 tags, and tags on a temporary chat', async () => {
    const alice = await t.signUp();
    const chat = await newChat(alice, 'Chat');
    const cases: [unknown, (string | number)[]][] = [
      [undefined, ['tags']],
      ['work', ['tags']],
      [[''], ['tags', 0]],
      [['ok', '   '], ['tags', 1]],
      [['x'.repeat(33)], ['tags', 0]],
      [['say "hi"'], ['tags', 0]],
      [[42], ['tags', 0]],
      [Array.from({ length: 11 }, (_, index) => `t${index}`), ['tags']],
    ];
    for (const [tags, path] of cases) {
      const refused = await request('PUT', `/api/sessions/${chat.id}/tags`, alice, { tags });
      expect(refused.status, JSON.stringify(tags)).toBe(400);
      expect((await refused.json()).error.issues[0].path, JSON.stringify(tags)).toEqual(path);
    }
    // Ten, and a name repeated in another case counts once.
    expect(await tag(alice, chat, [...Array.from({ length: 10 }, (_, index) => `t${index}`), 'T0'])).toHaveLength(10);
    expect(await tag(alice, chat, ['x'.repeat(32)])).toEqual(['x'.repeat(32)]);
    expect((await request('GET', `/api/sessions?tag=${'x'.repeat(33)}`, alice)).status).toBe(400);

    const temporary = await newChat(alice, 'Passing', { temporary: true });
    expect((await request('PUT', `/api/sessions/${temporary.id}/tags`, alice, { tags: ['work'] })).status).toBe(409);
  });
});

describe('concurrent tag changes by one user', () => {
  it('all succeed and leave every chat with the tags its last change gave it (one change at a time per user)', async () => {
    const alice = await t.signUp();
    const chats = await Promise.all(Array.from({ length: 4 }, (_, index) => newChat(alice, `Busy ${index}`)));
    // Each round takes the shared tag off some chats while others add it back: one change's clean-up
    // of unused tags must never delete the tag another change is linking.
    for (let round = 0; round < 6; round++) {
      const responses = await Promise.all(
        chats.map((chat, index) => request('PUT', `/api/sessions/${chat.id}/tags`, alice, { tags: (index + round) % 2 === 0 ? ['shared', `own ${index}`] : [] })),
      );
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      const expected = chats.map((_, index) => ((index + round) % 2 === 0 ? ['own ' + index, 'shared'] : []));
      const detail = await Promise.all(chats.map(async (chat) => ((await (await request('GET', `/api/sessions/${chat.id}`, alice)).json()) as { tags: string[] }).tags));
      expect(detail).toEqual(expected);
    }
  });
});

describe('chat tags in exports and imports', () => {
  const chatFile = (title: string, tags: unknown) => ({
    format: 'agentq.chat.v1',
    session: { title, tags },
    messages: [
      { role: 'user', createdAt: '2026-12-01T10:00:00.000Z', parts: [{ type: 'text', text: 'Where to go?' }] },
      { role: 'assistant', createdAt: '2026-12-01T10:00:05.000Z', parts: [{ type: 'text', text: 'Lyon.' }] },
    ],
  });

  it("carries a chat's tags in its JSON export (and Markdown), and an import restores them as the importer's tags", async () => {
    const alice = await t.signUp();
    await tag(alice, await newChat(alice, 'Mine'), ['travel']);
    // Invalid names are left out, a name repeated in another case counts once, and ten at most are kept.
    const messy = ['Travel', ' Ideas ', 'TRAVEL', '', 'x'.repeat(33), 'say "hi"', 7, ...Array.from({ length: 12 }, (_, index) => `t${index}`)];
    const imported = await request('POST', '/api/sessions/import', alice, chatFile('Trip', messy));
    expect(imported.status).toBe(201);
    const { id } = ((await imported.json()) as { items: { id: string }[] }).items[0]!;
    const expected = ['Ideas', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 'travel'];
    expect(await (await request('GET', `/api/sessions/${id}`, alice)).json()).toMatchObject({ title: 'Trip', tags: expected });
    expect((await tagList(alice)).find(([name]) => name === 'travel')).toEqual(['travel', 2]);

    const exported = await (await request('GET', `/api/sessions/${id}/export?format=json`, alice)).json();
    expect(exported.session.tags).toEqual(expected);
    expect(await (await request('GET', `/api/sessions/${id}/export`, alice)).text()).toContain(`Tags: ${expected.join(', ')}`);
    const all = (await (await request('GET', '/api/sessions/export', alice)).json()) as { session: { title: string; tags: string[] } }[];
    expect(all.map(({ session }) => [session.title, session.tags]).sort()).toEqual([['Mine', ['travel']], ['Trip', expected]]);

    // Into another account: the tags become the importer's own.
    const bob = await t.signUp();
    const again = await request('POST', '/api/sessions/import', bob, exported);
    expect(again.status).toBe(201);
    expect(await listed(bob, '')).toEqual([['Trip', expected]]);
    expect(await tagList(bob)).toEqual(expected.map((name) => [name, 1]));
    // Archived, the chat keeps its tags in the export too.
    const bobChat = ((await (await request('GET', '/api/sessions', bob)).json()) as { items: { id: string }[] }).items[0]!;
    await request('PATCH', `/api/sessions/${bobChat.id}`, bob, { archived: true });
    expect((await (await request('GET', `/api/sessions/${bobChat.id}/export?format=json`, bob)).json()).session.tags).toEqual(expected);
  });
});

describe('chat tags on the send path', () => {
  it('cost a send in a tagged chat nothing: the same statements as in an untagged one, none reading tags', async () => {
    const admin = await t.signUp('admin');
    const model = await (await request('POST', '/api/models', admin, { name: 'Model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' })).json();
    const sendCost = async (tags: string[]) => {
      const chat = await newChat(admin, 'Chat');
      if (tags.length > 0) await tag(admin, chat, tags);
      statements.length = 0;
      expect((await request('POST', `/api/sessions/${chat.id}/runs`, admin, { content: 'Hello', modelId: model.id })).status).toBe(202);
      // The queue add may follow the 202: let what the send set off finish.
      await new Promise((resolve) => setTimeout(resolve, 250));
      return [...statements];
    };
    await sendCost([]);
    const untagged = await sendCost([]);
    const tagged = await sendCost(['Work', 'Ideas']);
    expect(untagged).toHaveLength(1);
    expect(tagged).toEqual(untagged);
    expect(tagged.join('\n')).not.toMatch(/chat_tags|chat_session_tags/);
  });
});
