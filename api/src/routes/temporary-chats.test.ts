import { llmModels, messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createModel } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
  const model = await createModel(t.db, { name: 'Temporary chats test model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET);
  // Files running in parallel share the database: dated first, this model is the default whichever file creates one first.
  await t.db.update(llmModels).set({ createdAt: new Date('2000-01-01T00:00:00Z') }).where(eq(llmModels.id, model.id));
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account | null, body?: unknown) =>
  t.app.request(path, { method, headers: account ? account.headers : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

type Session = { id: string; title: string; temporary: boolean };

async function newSession(account: Account, body: Record<string, unknown> = {}): Promise<Session> {
  const response = await request('POST', '/api/sessions', account, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

/** Sends a question and stands in for the worker: the run ends with `reply`. @returns the answer's id. */
async function ask(account: Account, sessionId: string, question: string, reply: string): Promise<string> {
  const response = await request('POST', `/api/sessions/${sessionId}/runs`, account, { content: question });
  expect(response.status, await response.clone().text()).toBe(202);
  const { runId } = (await response.json()) as { runId: string };
  const answerId = newId('message');
  await t.db.insert(messages).values({ id: answerId, sessionId, role: 'assistant', parts: [{ type: 'text', text: reply }], runId });
  await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
  return answerId;
}

const listed = async (account: Account, query = '') => ((await (await request('GET', `/api/sessions${query}`, account)).json()) as { items: { id: string }[] }).items.map((item) => item.id);

describe('temporary chats', () => {
  it('starts one that says so, answers in it, and its run carries the flag (a regular chat and its run do not)', async () => {
    const me = await t.signUp('user');
    const temporary = await newSession(me, { temporary: true });
    expect(temporary.temporary).toBe(true);
    const regular = await newSession(me);
    expect(regular.temporary).toBe(false);

    await ask(me, temporary.id, 'Something I would rather not keep', 'Understood.');
    const detail = await request('GET', `/api/sessions/${temporary.id}`, me);
    expect(detail.status).toBe(200);
    const body = (await detail.json()) as Session & { messages: { parts: { text: string }[] }[] };
    expect(body.temporary).toBe(true);
    expect(body.title).toBe('Something I would rather not keep');
    expect(body.messages.map((message) => message.parts[0]?.text)).toEqual(['Something I would rather not keep', 'Understood.']);
    const [temporaryRun] = await t.db.select({ options: runs.options }).from(runs).where(eq(runs.sessionId, temporary.id));
    expect(temporaryRun!.options).toMatchObject({ temporary: true });

    await ask(me, regular.id, 'Keep this one', 'Kept.');
    expect(((await (await request('GET', `/api/sessions/${regular.id}`, me)).json()) as Session).temporary).toBe(false);
    const [regularRun] = await t.db.select({ options: runs.options }).from(runs).where(eq(runs.sessionId, regular.id));
    expect(regularRun!.options).not.toHaveProperty('temporary');
  });

  it('is in no list, search or export of everything, and archive-all leaves it alone; its own export still works', async () => {
    const me = await t.signUp('user');
    const regular = await newSession(me);
    await ask(me, regular.id, 'Quarterly budget review', 'Saved answer about the budget.');
    const temporary = await newSession(me, { temporary: true });
    await ask(me, temporary.id, 'Secret budget question', 'Temporary answer about the budget.');

    expect(await listed(me)).toEqual([regular.id]);
    expect(await listed(me, '?pinned=false&folder=none')).toEqual([regular.id]);
    expect(await listed(me, '?pinned=true')).toEqual([]);

    const search = async (q: string) => ((await (await request('GET', `/api/sessions/search?q=${encodeURIComponent(q)}`, me)).json()) as { items: { session: { id: string } }[] }).items.map((hit) => hit.session.id);
    // "budget" is in both chats' titles and messages; "Secret" and "Temporary" only in the temporary one's.
    expect(await search('budget')).toEqual([regular.id]);
    expect(await search('Secret')).toEqual([]);
    expect(await search('Temporary answer')).toEqual([]);

    const everything = (await (await request('GET', '/api/sessions/export', me)).json()) as { session: { id: string } }[];
    expect(everything.map((chat) => chat.session.id)).toEqual([regular.id]);

    expect(await (await request('POST', '/api/sessions/archive-all', me)).json()).toEqual({ archived: 1 });
    expect(await listed(me, '?archived=true')).toEqual([regular.id]);
    const stillThere = (await (await request('GET', `/api/sessions/${temporary.id}`, me)).json()) as Session & { archivedAt: string | null };
    expect(stillThere.archivedAt).toBeNull();

    const own = await request('GET', `/api/sessions/${temporary.id}/export?format=markdown`, me);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('Temporary answer about the budget.');
  });

  it('refuses to be shared, forked, rated, pinned, archived or filed in a folder (409 saying why), but can be renamed and deleted', async () => {
    const me = await t.signUp('user');
    const temporary = await newSession(me, { temporary: true });
    const answerId = await ask(me, temporary.id, 'Just between us', 'Of course.');
    const folder = (await (await request('POST', '/api/folders', me, { name: 'Work' })).json()) as { id: string };

    const refusals: [string, string, unknown?][] = [
      ['PUT', `/api/sessions/${temporary.id}/share`],
      ['POST', `/api/sessions/${temporary.id}/messages/${answerId}/fork`],
      ['PUT', `/api/sessions/${temporary.id}/messages/${answerId}/feedback`, { rating: 'up' }],
      ['PATCH', `/api/sessions/${temporary.id}`, { pinned: true }],
      ['PATCH', `/api/sessions/${temporary.id}`, { archived: true }],
      ['PATCH', `/api/sessions/${temporary.id}`, { folderId: folder.id }],
    ];
    for (const [method, path, body] of refusals) {
      const response = await request(method, path, me, body);
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(409);
      const { error } = (await response.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
      expect(error.code).toBe('conflict');
      expect(error.message).toMatch(/^This is a temporary chat: it cannot be (shared|forked|rated|pinned|archived|moved to a folder)\./);
      expect(error.details).toMatchObject({ temporary: true });
    }
    // Nothing changed: no link, no fork, no rating, not pinned, archived or filed.
    expect((await request('GET', `/api/sessions/${temporary.id}/share`, me)).status).toBe(404);
    expect(((await (await request('GET', `/api/sessions/${temporary.id}`, me)).json()) as { feedback: unknown[] }).feedback).toEqual([]);
    expect(await listed(me)).toEqual([]);
    expect(await listed(me, `?folder=${folder.id}`)).toEqual([]);
    const detail = (await (await request('GET', `/api/sessions/${temporary.id}`, me)).json()) as { pinnedAt: string | null; archivedAt: string | null; folderId: string | null };
    expect(detail).toMatchObject({ pinnedAt: null, archivedAt: null, folderId: null });

    const renamed = await request('PATCH', `/api/sessions/${temporary.id}`, me, { title: 'Quiet chat' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ title: 'Quiet chat', temporary: true });
    expect((await request('DELETE', `/api/sessions/${temporary.id}`, me)).status).toBe(204);
    expect((await request('GET', `/api/sessions/${temporary.id}`, me)).status).toBe(404);
  });

  it("is another user's 404, like any chat", async () => {
    const me = await t.signUp('user');
    const other = await t.signUp('user');
    const temporary = await newSession(me, { temporary: true });
    const answerId = await ask(me, temporary.id, 'Mine alone', 'Yes.');
    for (const [method, path, body] of [
      ['GET', `/api/sessions/${temporary.id}`],
      ['GET', `/api/sessions/${temporary.id}/export`],
      ['PUT', `/api/sessions/${temporary.id}/share`],
      ['POST', `/api/sessions/${temporary.id}/messages/${answerId}/fork`],
      ['PATCH', `/api/sessions/${temporary.id}`, { pinned: true }],
      ['POST', `/api/sessions/${temporary.id}/runs`, { content: 'Let me in' }],
      ['DELETE', `/api/sessions/${temporary.id}`],
    ] as [string, string, unknown?][]) {
      expect((await request(method, path, other, body)).status, `${method} ${path}`).toBe(404);
    }
    expect(await listed(other)).toEqual([]);
  });

  it('refuses a temporary flag that is not a boolean with the validation issue (400), and creates nothing', async () => {
    const me = await t.signUp('user');
    for (const temporary of ['true', 1, null, { yes: true }]) {
      const response = await request('POST', '/api/sessions', me, { temporary });
      expect(response.status, JSON.stringify(temporary)).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; issues: { path: (string | number)[] }[] } };
      expect(error.code).toBe('validation_failed');
      expect(error.issues.map((issue) => issue.path)).toEqual([['temporary']]);
    }
    expect(await listed(me)).toEqual([]);
  });

  it('is kept on request: it becomes a chat like any other (listed, its next run uses memory), and no chat becomes temporary', async () => {
    const me = await t.signUp('user');
    const temporary = await newSession(me, { temporary: true });
    await ask(me, temporary.id, 'Worth keeping after all', 'Glad to hear.');
    const regular = await newSession(me);

    expect((await request('PATCH', `/api/sessions/${regular.id}`, me, { temporary: true })).status).toBe(400);
    expect(((await (await request('GET', `/api/sessions/${regular.id}`, me)).json()) as Session).temporary).toBe(false);
    const other = await t.signUp('user');
    expect((await request('PATCH', `/api/sessions/${temporary.id}`, other, { temporary: false })).status).toBe(404);

    const kept = await request('PATCH', `/api/sessions/${temporary.id}`, me, { temporary: false, pinned: true });
    expect(kept.status).toBe(200);
    expect((await kept.json()) as Session).toMatchObject({ id: temporary.id, temporary: false });
    expect(await listed(me, '?pinned=true')).toEqual([temporary.id]);
    await ask(me, temporary.id, 'And now?', 'Now it is kept.');
    const chatRuns = await t.db.select({ options: runs.options }).from(runs).where(eq(runs.sessionId, temporary.id)).orderBy(runs.createdAt);
    expect(chatRuns.map((run) => (run.options as { temporary?: boolean }).temporary ?? false)).toEqual([true, false]);
  });
});
