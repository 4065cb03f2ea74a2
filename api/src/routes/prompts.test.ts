import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account | null, body?: unknown) =>
  t.app.request(path, { method, headers: account ? account.headers : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const commands = async (account: Account) => ((await (await request('GET', '/api/prompts', account)).json()) as { items: { command: string }[] }).items.map((prompt) => prompt.command);

describe('saved prompts', () => {
  it('saves, lists by command, changes and deletes a user\'s prompts; a command is the user\'s own once', async () => {
    const alice = await t.signUp('user');
    const bob = await t.signUp('user');
    const created = await request('POST', '/api/prompts', alice, { command: '/Translate', title: 'Translate to French', content: 'Translate into French: {{text}}' });
    expect(created.status).toBe(201);
    const translate = await created.json();
    expect(translate).toMatchObject({ id: expect.stringMatching(/^prm_/), command: 'translate', title: 'Translate to French', content: 'Translate into French: {{text}}' });
    expect((await request('POST', '/api/prompts', alice, { command: 'code-review', title: 'Review', content: 'Review this diff' })).status).toBe(201);
    expect(await commands(alice)).toEqual(['code-review', 'translate']);

    const taken = await request('POST', '/api/prompts', alice, { command: 'translate', title: 'Again', content: 'x' });
    expect(taken.status).toBe(409);
    expect((await taken.json()).error.message).toBe('You already have a prompt /translate');
    // Another user's commands are theirs: Bob may have /translate too, and sees none of Alice's.
    expect((await request('POST', '/api/prompts', bob, { command: 'translate', title: 'Mine', content: 'Translate into German: {{text}}' })).status).toBe(201);
    expect(await commands(bob)).toEqual(['translate']);

    const renamed = await request('PATCH', `/api/prompts/${translate.id}`, alice, { command: 'fr', title: 'French' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ command: 'fr', title: 'French', content: 'Translate into French: {{text}}' });
    expect((await request('PATCH', `/api/prompts/${translate.id}`, alice, { command: 'code-review' })).status).toBe(409);
    for (const method of ['PATCH', 'DELETE']) expect((await request(method, `/api/prompts/${translate.id}`, bob, method === 'PATCH' ? { title: 'x' } : undefined)).status, method).toBe(404);

    expect((await request('DELETE', `/api/prompts/${translate.id}`, alice)).status).toBe(204);
    expect((await request('DELETE', `/api/prompts/${translate.id}`, alice)).status).toBe(404);
    expect(await commands(alice)).toEqual(['code-review']);
  });

  it('refuses a bad command, an empty title or text, and an empty change, naming the field; 401 without a sign-in', async () => {
    const user = await t.signUp('user');
    for (const [body, field] of [
      [{ command: 'two words', title: 'T', content: 'c' }, 'command'],
      [{ command: '-dash', title: 'T', content: 'c' }, 'command'],
      [{ command: 'x'.repeat(41), title: 'T', content: 'c' }, 'command'],
      [{ command: 'ok', title: ' ', content: 'c' }, 'title'],
      [{ command: 'ok', title: 'T', content: '' }, 'content'],
    ] as const) {
      const refused = await request('POST', '/api/prompts', user, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect((await refused.json()).error.issues[0].path).toEqual([field]);
    }
    const prompt = await (await request('POST', '/api/prompts', user, { command: 'ok', title: 'T', content: 'c' })).json();
    expect((await request('PATCH', `/api/prompts/${prompt.id}`, user, {})).status).toBe(400);
    expect(await commands(user)).toEqual(['ok']);
    expect((await request('GET', '/api/prompts', null)).status).toBe(401);
  });
});
