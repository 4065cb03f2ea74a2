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

describe('shared prompts', () => {
  type Listed = { id: string; command: string; title: string; owned: boolean; sharedBy: string | null; shared: boolean; groupIds: string[] };
  const listed = async (account: Account) => ((await (await request('GET', '/api/prompts', account)).json()) as { items: Listed[] }).items;
  const unique = () => Math.random().toString(36).slice(2, 8);
  const named = async (role: 'admin' | 'user', name: string) => {
    const account = await t.signUp(role);
    await t.signUp('admin').then((boss) => request('PATCH', `/api/users/${account.user.id}`, boss, { name }));
    return account;
  };

  it('lets an admin share with everyone or with groups; members see it read-only as "shared by", outsiders never', async () => {
    const admin = await named('admin', 'Grace Admin');
    const member = await t.signUp('user');
    const outsider = await t.signUp('user');
    const group = await (await request('POST', '/api/groups', admin, { name: `Support ${unique()}` })).json();
    expect((await request('PUT', `/api/groups/${group.id}/members/${member.user.id}`, admin)).status).toBe(204);

    const forAll = `all-${unique()}`;
    const forGroup = `support-${unique()}`;
    const everyone = await request('POST', '/api/prompts', admin, { command: forAll, title: 'For everyone', content: 'Hello all', shared: true });
    expect(everyone.status).toBe(201);
    expect(await everyone.json()).toMatchObject({ shared: true, groupIds: [] });
    const created = await request('POST', '/api/prompts', admin, { command: forGroup, title: 'Support reply', content: 'Dear {{customer}}', shared: true, groupIds: [group.id] });
    expect(created.status).toBe(201);
    const groupPrompt = (await created.json()) as Listed;
    const privateCommand = `private-${unique()}`;
    expect((await request('POST', '/api/prompts', admin, { command: privateCommand, title: 'Mine', content: 'x' })).status).toBe(201);

    const memberView = await listed(member);
    expect(memberView.find((prompt) => prompt.command === forGroup)).toMatchObject({ id: groupPrompt.id, title: 'Support reply', content: 'Dear {{customer}}', owned: false, sharedBy: 'Grace Admin', shared: true, groupIds: [] });
    expect(memberView.find((prompt) => prompt.command === forAll)).toMatchObject({ owned: false, sharedBy: 'Grace Admin' });
    const outsiderCommands = (await listed(outsider)).map((prompt) => prompt.command);
    expect(outsiderCommands).toContain(forAll);
    expect(outsiderCommands).not.toContain(forGroup);
    for (const view of [memberView, await listed(outsider)]) expect(view.map((prompt) => prompt.command)).not.toContain(privateCommand);
    expect((await listed(admin)).filter((prompt) => [forAll, forGroup, privateCommand].includes(prompt.command)).map((prompt) => [prompt.command, prompt.owned, prompt.sharedBy])).toEqual(
      [[forAll, true, null], [forGroup, true, null], [privateCommand, true, null]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // Read-only for everyone but its owner: 404, as for a prompt that is not there.
    expect((await request('PATCH', `/api/prompts/${groupPrompt.id}`, member, { title: 'Hijacked' })).status).toBe(404);
    expect((await request('DELETE', `/api/prompts/${groupPrompt.id}`, member)).status).toBe(404);
    const otherAdmin = await t.signUp('admin');
    expect((await request('PATCH', `/api/prompts/${groupPrompt.id}`, otherAdmin, { shared: false })).status).toBe(404);
    expect((await listed(member)).find((prompt) => prompt.command === forGroup)?.title).toBe('Support reply');

    // Out of the group: gone from their list. Unshared: gone for everyone but its owner.
    expect((await request('DELETE', `/api/groups/${group.id}/members/${member.user.id}`, admin)).status).toBe(204);
    expect((await listed(member)).map((prompt) => prompt.command)).not.toContain(forGroup);
    const everyoneId = (await listed(admin)).find((prompt) => prompt.command === forAll)!.id;
    expect((await request('PATCH', `/api/prompts/${everyoneId}`, admin, { shared: false })).status).toBe(200);
    expect((await listed(outsider)).map((prompt) => prompt.command)).not.toContain(forAll);

    // Each share, change of whom, unshare and delete of a shared prompt is audited; a title change is not.
    expect((await request('PATCH', `/api/prompts/${groupPrompt.id}`, admin, { groupIds: [] })).status).toBe(200);
    expect((await request('PATCH', `/api/prompts/${groupPrompt.id}`, admin, { title: 'Support answer' })).status).toBe(200);
    expect((await request('DELETE', `/api/prompts/${groupPrompt.id}`, admin)).status).toBe(204);
    const audit = async (id: string) => ((await (await request('GET', `/api/admin/audit?action=prompt&targetId=${id}`, admin)).json()) as { items: { action: string; details: Record<string, unknown> }[] }).items;
    expect((await audit(groupPrompt.id)).map((entry) => entry.action)).toEqual(['prompt.unshare', 'prompt.share', 'prompt.share']);
    expect((await audit(groupPrompt.id)).at(-1)?.details).toEqual({ name: `/${forGroup}`, groupIds: [group.id] });
    expect((await audit(everyoneId)).map((entry) => entry.action)).toEqual(['prompt.unshare', 'prompt.share']);
  });

  it('refuses sharing to a non-admin (403) and an unknown group (400); a shared prompt stops showing when its owner is no longer an admin', async () => {
    const user = await t.signUp('user');
    const admin = await t.signUp('admin');
    const refused = await request('POST', '/api/prompts', user, { command: `mine-${unique()}`, title: 'T', content: 'c', shared: true });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toBe('Only admins can share prompts with other users');
    expect((await request('POST', '/api/prompts', user, { command: `mine-${unique()}`, title: 'T', content: 'c', groupIds: ['grp_x'] })).status).toBe(403);
    const own = await (await request('POST', '/api/prompts', user, { command: `mine-${unique()}`, title: 'T', content: 'c', shared: false })).json();
    expect((await request('PATCH', `/api/prompts/${own.id}`, user, { shared: true })).status).toBe(403);
    expect((await listed(user)).find((prompt) => prompt.id === own.id)).toMatchObject({ shared: false, owned: true });

    const unknownGroup = await request('POST', '/api/prompts', admin, { command: `x-${unique()}`, title: 'T', content: 'c', shared: true, groupIds: ['grp_missing'] });
    expect(unknownGroup.status).toBe(400);
    expect((await unknownGroup.json()).error.issues[0].path).toEqual(['groupIds']);
    expect((await request('POST', '/api/prompts', admin, { command: `x-${unique()}`, title: 'T', content: 'c', shared: 'yes' })).status).toBe(400);

    const command = `demoted-${unique()}`;
    expect((await request('POST', '/api/prompts', admin, { command, title: 'T', content: 'c', shared: true })).status).toBe(201);
    expect((await listed(user)).map((prompt) => prompt.command)).toContain(command);
    expect((await request('PATCH', `/api/users/${admin.user.id}`, await t.signUp('admin'), { role: 'user' })).status).toBe(200);
    expect((await listed(user)).map((prompt) => prompt.command)).not.toContain(command);
  });

  it('gives a user\'s own prompt the command both use: the shared one is left out of their list', async () => {
    const admin = await named('admin', 'Ada Admin');
    const user = await t.signUp('user');
    const command = `clash-${unique()}`;
    expect((await request('POST', '/api/prompts', admin, { command, title: 'Shared one', content: 'shared', shared: true })).status).toBe(201);
    expect((await listed(user)).filter((prompt) => prompt.command === command)).toMatchObject([{ title: 'Shared one', owned: false, sharedBy: 'Ada Admin' }]);
    // Their own may take the command (commands are per user), and then it is the one listed.
    expect((await request('POST', '/api/prompts', user, { command, title: 'My one', content: 'mine' })).status).toBe(201);
    expect((await listed(user)).filter((prompt) => prompt.command === command)).toMatchObject([{ title: 'My one', owned: true, sharedBy: null }]);
  });
});
