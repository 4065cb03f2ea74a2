import { ingestKnowledgeFile } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Account = Awaited<ReturnType<typeof t.signUp>>;
type Listed = { id: string; name: string; owned: boolean; sharedBy: string | null; shared: boolean; groupIds: string[]; fileCount: number };

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });
const unique = () => Math.random().toString(36).slice(2, 8);
const listed = async (account: Account) => ((await (await send('GET', '/api/knowledge', account)).json()) as { items: Listed[] }).items;

async function named(role: 'admin' | 'user', name: string): Promise<Account> {
  const account = await t.signUp(role);
  const boss = await t.signUp('admin');
  expect((await send('PATCH', `/api/users/${account.user.id}`, boss, { name })).status).toBe(200);
  return account;
}

/** A base of `owner` with one ready file (ingested here, as the worker would). */
async function baseWithFile(owner: Account, name: string, fileName: string, text: string): Promise<{ id: string; fileId: string }> {
  const base = (await (await send('POST', '/api/knowledge', owner, { name })).json()) as { id: string };
  const form = new FormData();
  form.append('file', new File([text], fileName, { type: 'text/markdown' }));
  const uploaded = await t.app.request(`/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: owner.cookie }, body: form });
  expect(uploaded.status).toBe(201);
  const file = (await uploaded.json()) as { id: string };
  await ingestKnowledgeFile(t.db, file.id, { appSecret: TEST_APP_SECRET, finalAttempt: true });
  return { id: base.id, fileId: file.id };
}

async function groupWith(admin: Account, ...members: Account[]): Promise<{ id: string; name: string }> {
  const group = (await (await send('POST', '/api/groups', admin, { name: `HR readers ${unique()}` })).json()) as { id: string; name: string };
  for (const member of members) expect((await send('PUT', `/api/groups/${group.id}/members/${member.user.id}`, admin)).status).toBe(204);
  return group;
}

describe('knowledge bases shared by an admin', () => {
  it('shows a base shared with a group to its members as "shared by", read-only; to no one else; admins see every shared base', async () => {
    const owner = await named('admin', 'Hana Admin');
    const member = await t.signUp('user');
    const outsider = await t.signUp('user');
    const otherAdmin = await t.signUp('admin');
    const group = await groupWith(owner, member);
    const base = await baseWithFile(owner, `HR handbook ${unique()}`, 'leave.md', 'Annual leave: staff get 27 days of paid leave a year.');
    const privateBase = await baseWithFile(owner, 'Private notes', 'notes.md', 'Salary bands are confidential.');

    const shared = await send('PATCH', `/api/knowledge/${base.id}`, owner, { shared: true, groupIds: [group.id] });
    expect(shared.status).toBe(200);
    expect(await shared.json()).toMatchObject({ id: base.id, shared: true, groupIds: [group.id] });

    // The member: listed as shared by its owner (not with whom), opened with its files, test-searched.
    const memberView = (await listed(member)).find((row) => row.id === base.id);
    expect(memberView).toMatchObject({ owned: false, sharedBy: 'Hana Admin', shared: true, groupIds: [], fileCount: 1 });
    expect((await listed(member)).some((row) => row.id === privateBase.id)).toBe(false);
    const opened = await send('GET', `/api/knowledge/${base.id}`, member);
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({ owned: false, sharedBy: 'Hana Admin', groupIds: [], files: [{ id: base.fileId, name: 'leave.md', status: 'ready' }] });
    const searched = await send('POST', `/api/knowledge/${base.id}/search`, member, { query: 'annual leave days' });
    expect(searched.status).toBe(200);
    expect((await searched.json()).passages[0]).toMatchObject({ fileName: 'leave.md', text: expect.stringContaining('27 days') });

    // The owner: still theirs. Another admin: sees it (with its groups), never the private one.
    expect((await listed(owner)).find((row) => row.id === base.id)).toMatchObject({ owned: true, sharedBy: null, groupIds: [group.id] });
    expect((await listed(otherAdmin)).find((row) => row.id === base.id)).toMatchObject({ owned: false, sharedBy: 'Hana Admin', groupIds: [group.id] });
    expect((await listed(otherAdmin)).some((row) => row.id === privateBase.id)).toBe(false);
    expect((await send('GET', `/api/knowledge/${privateBase.id}`, otherAdmin)).status).toBe(404);

    // Someone outside the group: as if it did not exist.
    expect((await listed(outsider)).some((row) => row.id === base.id)).toBe(false);
    expect((await send('GET', `/api/knowledge/${base.id}`, outsider)).status).toBe(404);
    expect((await send('POST', `/api/knowledge/${base.id}/search`, outsider, { query: 'leave' })).status).toBe(404);
    expect((await send('PATCH', `/api/knowledge/${base.id}`, outsider, { name: 'Mine' })).status).toBe(404);
    expect((await send('DELETE', `/api/knowledge/${base.id}`, outsider)).status).toBe(404);

    // Shared with everyone: the outsider reads it too.
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { groupIds: [] })).status).toBe(200);
    expect((await listed(outsider)).find((row) => row.id === base.id)).toMatchObject({ owned: false, sharedBy: 'Hana Admin' });
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { groupIds: [group.id] })).status).toBe(200);
    expect((await send('GET', `/api/knowledge/${base.id}`, outsider)).status).toBe(404);

    // Taken out of the group: gone. Unshared: gone for everyone but its owner.
    expect((await send('DELETE', `/api/groups/${group.id}/members/${member.user.id}`, owner)).status).toBe(204);
    expect((await send('GET', `/api/knowledge/${base.id}`, member)).status).toBe(404);
    expect((await send('PUT', `/api/groups/${group.id}/members/${member.user.id}`, owner)).status).toBe(204);
    expect((await send('GET', `/api/knowledge/${base.id}`, member)).status).toBe(200);
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { shared: false })).status).toBe(200);
    expect((await send('GET', `/api/knowledge/${base.id}`, member)).status).toBe(404);
    expect((await send('GET', `/api/knowledge/${base.id}`, otherAdmin)).status).toBe(404);
    expect((await listed(owner)).find((row) => row.id === base.id)).toMatchObject({ owned: true, shared: false });

    type AuditEntry = { action: string; details: Record<string, unknown> };
    const audit = ((await (await send('GET', `/api/admin/audit?action=knowledge&targetId=${base.id}`, owner)).json()) as { items: AuditEntry[] }).items;
    expect(audit.map((entry) => entry.action)).toEqual(['knowledge.unshare', 'knowledge.share', 'knowledge.share', 'knowledge.share']);
    expect(audit.at(-1)?.details).toMatchObject({ name: expect.stringContaining('HR handbook'), groupIds: [group.id] });
  });

  it('refuses every write to a reader: 403 for the member, 404 for the rest; sharing is for admins only', async () => {
    const owner = await named('admin', 'Ines Admin');
    const member = await t.signUp('user');
    const group = await groupWith(owner, member);
    const base = await baseWithFile(owner, 'Policies', 'travel.md', 'Travel policy: trains under 600 km.');
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { shared: true, groupIds: [group.id] })).status).toBe(200);

    const form = new FormData();
    form.append('file', new File(['Injected text'], 'evil.md'));
    const writes: [string, string, unknown?][] = [
      ['PATCH', `/api/knowledge/${base.id}`, { name: 'Renamed' }],
      ['PATCH', `/api/knowledge/${base.id}`, { shared: false }],
      ['DELETE', `/api/knowledge/${base.id}`],
      ['POST', `/api/knowledge/${base.id}/pages`, { urls: ['https://example.com/'] }],
      ['POST', `/api/knowledge/${base.id}/reindex`],
      ['POST', `/api/knowledge/${base.id}/files/${base.fileId}/refetch`],
      ['DELETE', `/api/knowledge/${base.id}/files/${base.fileId}`],
    ];
    for (const [method, path, body] of writes) {
      const response = await send(method, path, member, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await response.json()).error.message).toBe("'Policies' is shared with you by Ines Admin: only its owner can change it");
    }
    const uploaded = await t.app.request(`/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: member.cookie }, body: form });
    expect(uploaded.status).toBe(403);
    const after = (await (await send('GET', `/api/knowledge/${base.id}`, owner)).json()) as { name: string; shared: boolean; files: { id: string }[] };
    expect(after).toMatchObject({ name: 'Policies', shared: true, files: [{ id: base.fileId }] });

    // A user shares nothing (not even their own base); keeping it to themselves is fine.
    const own = await baseWithFile(member, 'Mine', 'mine.md', 'My notes.');
    const refused = await send('PATCH', `/api/knowledge/${own.id}`, member, { shared: true });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toBe('Only admins can share knowledge bases with other users');
    expect((await send('PATCH', `/api/knowledge/${own.id}`, member, { groupIds: [group.id] })).status).toBe(403);
    expect((await send('PATCH', `/api/knowledge/${own.id}`, member, { shared: false })).status).toBe(200);

    // Another admin may change a shared base's sharing (not its content); an unknown group is a 400.
    const otherAdmin = await t.signUp('admin');
    expect((await send('PATCH', `/api/knowledge/${base.id}`, otherAdmin, { name: 'Taken' })).status).toBe(403);
    const unknown = await send('PATCH', `/api/knowledge/${base.id}`, owner, { groupIds: ['grp_missing'] });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.issues[0].path).toEqual(['groupIds']);
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { shared: 'yes' })).status).toBe(400);
    expect((await send('PATCH', `/api/knowledge/${base.id}`, otherAdmin, { shared: false })).status).toBe(200);
    expect((await send('GET', `/api/knowledge/${base.id}`, member)).status).toBe(404);
  });

  it('stops offering a shared base once its owner is no longer an admin', async () => {
    const owner = await t.signUp('admin');
    const reader = await t.signUp('user');
    const base = await baseWithFile(owner, 'Everyone', 'all.md', 'For all.');
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { shared: true })).status).toBe(200);
    expect((await send('GET', `/api/knowledge/${base.id}`, reader)).status).toBe(200);
    expect((await send('PATCH', `/api/users/${owner.user.id}`, await t.signUp('admin'), { role: 'user' })).status).toBe(200);
    expect((await send('GET', `/api/knowledge/${base.id}`, reader)).status).toBe(404);
  });

  it('refuses to delete a group a shared base is shared with (409 naming it); deleting a group takes it out of unshared bases', async () => {
    const admin = await t.signUp('admin');
    const group = await groupWith(admin);
    const name = `Shared handbook ${unique()}`;
    const base = await baseWithFile(admin, name, 'h.md', 'Handbook.');
    expect((await send('PATCH', `/api/knowledge/${base.id}`, admin, { shared: true, groupIds: [group.id] })).status).toBe(200);
    const refused = await send('DELETE', `/api/groups/${group.id}`, admin);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toContain(`knowledge base '${name}'`);

    // Unshared, the base still names the group (for when it is shared again) until the group goes.
    const unshared = await send('PATCH', `/api/knowledge/${base.id}`, admin, { shared: false });
    expect(await unshared.json()).toMatchObject({ shared: false, groupIds: [group.id] });
    expect((await send('DELETE', `/api/groups/${group.id}`, admin)).status).toBe(204);
    expect(await (await send('GET', `/api/knowledge/${base.id}`, admin)).json()).toMatchObject({ shared: false, groupIds: [] });
  });
});
