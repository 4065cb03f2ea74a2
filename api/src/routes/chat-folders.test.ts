import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
type Folder = { id: string; name: string; chatCount: number };
const request = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });
const folders = async (account: Account) => ((await (await request('GET', '/api/folders', account)).json()) as { items: Folder[] }).items.map(({ name, chatCount }) => [name, chatCount]);
const titles = async (account: Account, query: string) => ((await (await request('GET', `/api/sessions?${query}`, account)).json()) as { items: { title: string }[] }).items.map((session) => session.title).sort();

async function newChat(account: Account, title: string) {
  const response = await request('POST', '/api/sessions', account, { title });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}

describe('chat folders', () => {
  it('files chats in folders: each folder lists its own, the rest stay unfiled, and deleting a folder sends its chats back', async () => {
    const alice = await t.signUp();
    const work = (await (await request('POST', '/api/folders', alice, { name: ' Work ' })).json()) as Folder;
    expect(work).toMatchObject({ id: expect.stringMatching(/^fld_/), name: 'Work', chatCount: 0 });
    const trips = (await (await request('POST', '/api/folders', alice, { name: 'Trips' })).json()) as Folder;
    const taken = await request('POST', '/api/folders', alice, { name: 'Work' });
    expect(taken.status).toBe(409);
    expect((await taken.json()).error.message).toBe('You already have a folder named Work');

    const budget = await newChat(alice, 'Budget');
    const lyon = await newChat(alice, 'Lyon');
    await newChat(alice, 'Loose');
    expect((await request('PATCH', `/api/sessions/${budget.id}`, alice, { folderId: work.id })).status).toBe(200);
    const moved = await request('PATCH', `/api/sessions/${lyon.id}`, alice, { folderId: trips.id });
    expect(await moved.json()).toMatchObject({ folderId: trips.id });

    expect(await folders(alice)).toEqual([['Trips', 1], ['Work', 1]]);
    expect(await titles(alice, `folder=${work.id}`)).toEqual(['Budget']);
    expect(await titles(alice, 'folder=none')).toEqual(['Loose']);
    expect(await titles(alice, '')).toEqual(['Budget', 'Loose', 'Lyon']);

    // Out of its folder, and a renamed folder keeps its chats.
    expect(await (await request('PATCH', `/api/sessions/${lyon.id}`, alice, { folderId: null })).json()).toMatchObject({ folderId: null });
    expect(await (await request('PATCH', `/api/folders/${work.id}`, alice, { name: 'Office' })).json()).toMatchObject({ name: 'Office' });
    expect(await folders(alice)).toEqual([['Office', 1], ['Trips', 0]]);

    expect((await request('DELETE', `/api/folders/${work.id}`, alice)).status).toBe(204);
    expect(await folders(alice)).toEqual([['Trips', 0]]);
    expect(await titles(alice, 'folder=none')).toEqual(['Budget', 'Loose', 'Lyon']);
  });

  it("keeps folders to their owner: another user's folder cannot be listed, renamed, deleted or filed into; bad names are 400s", async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const secret = (await (await request('POST', '/api/folders', alice, { name: 'Secret' })).json()) as Folder;
    const bobChat = await newChat(bob, 'Mine');
    expect(await folders(bob)).toEqual([]);
    expect((await request('PATCH', `/api/folders/${secret.id}`, bob, { name: 'Taken over' })).status).toBe(404);
    expect((await request('DELETE', `/api/folders/${secret.id}`, bob)).status).toBe(404);
    const filed = await request('PATCH', `/api/sessions/${bobChat.id}`, bob, { folderId: secret.id });
    expect(filed.status).toBe(400);
    expect((await filed.json()).error.issues[0].path).toEqual(['folderId']);
    expect(await titles(bob, `folder=${secret.id}`)).toEqual([]);
    for (const name of ['', '   ', 'x'.repeat(101)]) {
      const refused = await request('POST', '/api/folders', alice, { name });
      expect(refused.status, name).toBe(400);
      expect((await refused.json()).error.issues[0].path).toEqual(['name']);
    }
    expect(await folders(alice)).toEqual([['Secret', 0]]);
  });
});
