import { randomBytes } from 'node:crypto';
import { users } from '@agentq/shared/db';
import { createUser } from '@agentq/shared/services';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let member: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  member = await t.signUp('user');
});
afterAll(() => t.close());

type UserPage = { items: { id: string; email: string; name: string }[]; total: number; nextCursor: string | null };
const list = (query: string, account = admin) => t.app.request(`/api/users${query}`, { headers: account.headers });
async function page(query: string): Promise<UserPage> {
  const response = await list(query);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** Every page of a search, following nextCursor. */
async function everyPage(q: string, limit: number): Promise<{ pages: UserPage[]; emails: string[] }> {
  const pages: UserPage[] = [];
  let cursor: string | null = null;
  do {
    const next: UserPage = await page(`?${new URLSearchParams({ q, limit: String(limit), ...(cursor ? { cursor } : {}) })}`);
    pages.push(next);
    cursor = next.nextCursor;
  } while (cursor);
  return { pages, emails: pages.flatMap((each) => each.items.map((user) => user.email)) };
}

describe('GET /api/users', () => {
  it('pages every user newest first with total, however many; q finds by email or name, case-insensitively', async () => {
    // Other test files share the database: this file's users carry a tag of their own.
    const tag = `pager${randomBytes(4).toString('hex')}`;
    const created: string[] = [];
    for (let index = 0; index < 7; index++) {
      const user = await createUser(t.db, { email: `${tag}-${index}@example.com`, name: index === 3 ? 'Grace Hopper' : `Pager ${index}`, password: 'correct horse battery', role: 'user' });
      created.push(user.email);
    }
    // Three created in the same microsecond: the id orders them, and no page repeats or skips one.
    const sameInstant = new Date('2026-01-02T03:04:05.678901Z');
    await t.db.update(users).set({ createdAt: sameInstant }).where(inArray(users.email, created.slice(0, 3)));

    const { pages, emails } = await everyPage(tag, 2);
    expect(pages).toHaveLength(4);
    expect(pages.map((each) => each.total)).toEqual([7, 7, 7, 7]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(new Set(emails).size).toBe(7);
    expect(emails.slice(0, 4)).toEqual(created.slice(3).reverse());
    expect(emails.slice(4).sort()).toEqual(created.slice(0, 3).sort());

    expect((await page(`?q=${tag.toUpperCase()}-3`)).items.map((user) => user.name)).toEqual(['Grace Hopper']);
    expect((await page(`?q=${encodeURIComponent(`grace ${tag}`)}`)).items.map((user) => user.email)).toEqual([`${tag}-3@example.com`]);
    expect(await page(`?q=${tag}-none`)).toEqual({ items: [], total: 0, nextCursor: null });
    // LIKE's wildcards are taken literally.
    expect((await page(`?q=${tag}_%25`)).total).toBe(0);

    // Without a limit a page holds 50; the whole list counts everyone.
    const first = await page('');
    expect(first.items.length).toBeLessThanOrEqual(50);
    expect(first.total).toBeGreaterThanOrEqual(9);
    expect(first.items.every((user) => !('passwordHash' in user))).toBe(true);
  });

  it('keeps paging stably while users are added and deleted meanwhile', async () => {
    const tag = `stable${randomBytes(4).toString('hex')}`;
    for (let index = 0; index < 5; index++) await createUser(t.db, { email: `${tag}-${index}@example.com`, name: `Stable ${index}`, password: 'correct horse battery', role: 'user' });
    const first = await page(`?q=${tag}&limit=2`);
    expect(first.items.map((user) => user.email)).toEqual([`${tag}-4@example.com`, `${tag}-3@example.com`]);
    // A newer user and a deleted one already listed do not shift the next page.
    await createUser(t.db, { email: `${tag}-5@example.com`, name: 'Stable 5', password: 'correct horse battery', role: 'user' });
    await t.app.request(`/api/users/${first.items[0]!.id}`, { method: 'DELETE', headers: admin.headers });
    const second = await page(`?q=${tag}&limit=2&cursor=${first.nextCursor}`);
    expect(second.items.map((user) => user.email)).toEqual([`${tag}-2@example.com`, `${tag}-1@example.com`]);
    expect(second.total).toBe(5);
  });

  it('answers 400 for a bad limit, cursor or query, and 403 to a user who is not an admin', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?cursor=abc', '?cursor=1~a%20b', `?q=${'x'.repeat(201)}`]) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.issues.length, query).toBeGreaterThan(0);
    }
    expect((await list('', member)).status).toBe(403);
    expect((await t.app.request('/api/users')).status).toBe(401);
  });
});

describe('PATCH /api/users/:id', () => {
  it('changes only what it is sent: a password reset, a rename or disabling leaves an admin an admin', async () => {
    const other = await t.signUp('admin');
    const patch = (body: unknown) => t.app.request(`/api/users/${other.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify(body) });
    for (const body of [{ password: 'another long password' }, { name: 'Renamed admin' }, { disabled: true }, { disabled: false }]) {
      const changed = await patch(body);
      expect(changed.status, JSON.stringify(body)).toBe(200);
      expect((await changed.json()).role, JSON.stringify(body)).toBe('admin');
    }
    expect((await (await patch({ role: 'user' })).json()).role).toBe('user');
  });
});
