import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, DbHandle } from '../db/client';
import { llmModels, sessions, users } from '../db/schema';
import { openTestDb, randomPrefix, testRedisUrl } from '../testing';
import { createAgent, getAgent, resolveAgentTools, updateAgent } from './agents';
import { ConfigCache, startConfigCache } from './config-cache';
import { createModel, getModelWithKey, updateModel } from './models';
import { createToolInputSchema, createTool as createToolRow, getTool, updateTool, type CreateToolInput } from './tools';
import { changeOwnPassword, createSession, createUser, deleteSession, deleteUser, hashSecret, resolveSession, updateProfile, updateUser } from './users';

const createTool = (db: Database, input: Partial<CreateToolInput> & { name: string; slug: string; type: string }) => createToolRow(db, createToolInputSchema.parse(input));

const APP_SECRET = 'config-cache-secret-0123456789';

/** One "process": its own database pool, its own Redis connections, its own cache. */
type Process = { database: DbHandle; cache: ConfigCache; close: () => Promise<void> };

async function startProcess(prefix: string): Promise<Process> {
  const database = await openTestDb();
  const publisher = new Redis(testRedisUrl());
  const subscriber = new Redis(testRedisUrl());
  const { cache, close } = await startConfigCache(database.db, { publisher, subscriber, prefix });
  return {
    database,
    cache,
    close: async () => {
      await close();
      subscriber.disconnect();
      publisher.disconnect();
      await database.close();
    },
  };
}

describe('config cache across processes', () => {
  const prefix = randomPrefix('config');
  let a: Process;
  let b: Process;
  let direct: DbHandle;

  beforeAll(async () => {
    [a, b, direct] = await Promise.all([startProcess(prefix), startProcess(prefix), openTestDb()]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), direct?.close()]);
  });

  it('serves repeated reads from memory, without the database', async () => {
    const model = await createModel(a.database.db, { name: 'cached', baseUrl: 'https://one.example/v1', modelId: 'm1' }, APP_SECRET);
    expect((await getModelWithKey(b.database.db, model.id, APP_SECRET)).baseUrl).toBe('https://one.example/v1');
    // Let A's invalidation of its own create reach B (it may land after B's first load).
    await new Promise((resolve) => setTimeout(resolve, 200));
    await getModelWithKey(b.database.db, model.id, APP_SECRET);
    const loads = b.cache.stats.loads;
    // Written behind the services' back: a cached reader cannot see it, which proves the read is cached.
    await direct.db.update(llmModels).set({ baseUrl: 'https://sneaky.example/v1' }).where(eq(llmModels.id, model.id));
    expect((await getModelWithKey(b.database.db, model.id, APP_SECRET)).baseUrl).toBe('https://one.example/v1');
    expect(b.cache.stats.loads).toBe(loads);
    expect(b.cache.stats.hits).toBeGreaterThan(0);
  });

  it('an update through one process invalidates the other process’s cache', async () => {
    const model = await createModel(a.database.db, { name: 'to change', baseUrl: 'https://before.example/v1', modelId: 'm2' }, APP_SECRET);
    expect((await getModelWithKey(b.database.db, model.id, APP_SECRET)).baseUrl).toBe('https://before.example/v1');
    await updateModel(a.database.db, model.id, { baseUrl: 'https://after.example/v1', apiKey: 'sk-new' }, APP_SECRET);
    // The writer's own cache is cleared before the update returns.
    expect((await getModelWithKey(a.database.db, model.id, APP_SECRET)).apiKey).toBe('sk-new');
    await expect.poll(async () => (await getModelWithKey(b.database.db, model.id, APP_SECRET)).baseUrl, { timeout: 2_000 }).toBe('https://after.example/v1');
    expect((await getModelWithKey(b.database.db, model.id, APP_SECRET)).apiKey).toBe('sk-new');
  });

  it('agents and tools: what a worker offers follows changes made through the API process', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const calc = await createTool(a.database.db, { name: 'Calc', slug: `calc_${suffix}`, type: 'calculator', config: {} });
    const clock = await createTool(a.database.db, { name: 'Clock', slug: `clock_${suffix}`, type: 'datetime', config: {} });
    const agent = await createAgent(a.database.db, { name: `agent ${suffix}`, tools: [{ toolId: calc.id }] });
    expect((await resolveAgentTools(b.database.db, agent.id)).map((entry) => entry.tool.slug)).toEqual([`calc_${suffix}`]);

    await updateAgent(a.database.db, agent.id, { tools: [{ toolId: calc.id }, { toolId: clock.id, needsApproval: true }], maxSteps: 3 });
    await expect
      .poll(async () => (await resolveAgentTools(b.database.db, agent.id)).map((entry) => [entry.tool.slug, entry.needsApproval]), { timeout: 2_000 })
      .toEqual([
        [`calc_${suffix}`, false],
        [`clock_${suffix}`, true],
      ]);
    expect((await getAgent(b.database.db, agent.id)).maxSteps).toBe(3);

    await updateTool(a.database.db, calc.id, { enabled: false });
    await expect.poll(async () => (await getTool(b.database.db, calc.id)).enabled, { timeout: 2_000 }).toBe(false);
    expect((await resolveAgentTools(b.database.db, agent.id)).map((entry) => entry.tool.slug)).toEqual([`clock_${suffix}`]);
  });

  it('finds a row created a moment ago elsewhere even before the invalidation arrives', async () => {
    await getTool(b.database.db, (await createTool(a.database.db, { name: 'Warm', slug: `warm_${Date.now()}`, type: 'calculator', config: {} })).id);
    // Inserted behind the cache's back: no invalidation at all, and still found (a miss reloads once).
    const created = await createTool(direct.db, { name: 'Fresh', slug: `fresh_${Date.now()}`, type: 'calculator', config: {} });
    expect((await getTool(b.database.db, created.id)).slug).toBe(created.slug);
  });
});

describe('auth cache across processes', () => {
  const prefix = randomPrefix('auth');
  let a: Process;
  let b: Process;
  let direct: DbHandle;
  const newUser = (role: 'admin' | 'user' = 'user') =>
    createUser(direct.db, { email: `cache-${Math.random().toString(36).slice(2, 10)}@test.local`, name: 'Cached', password: 'cache-password-123', role });
  /** B has read (and cached) the session; a write behind the services' back proves B's reads come from memory. */
  async function cachedInB(token: string, userId: string) {
    expect((await resolveSession(b.database.db, token))?.id).toBe(userId);
    const loads = b.cache.stats.loads;
    await direct.db.update(users).set({ name: 'Renamed behind the cache' }).where(eq(users.id, userId));
    expect((await resolveSession(b.database.db, token))?.name).toBe('Cached');
    expect(b.cache.stats.loads).toBe(loads);
  }

  beforeAll(async () => {
    [a, b, direct] = await Promise.all([startProcess(prefix), startProcess(prefix), openTestDb()]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), direct?.close()]);
  });

  it('signing out through one process ends the session in the other at once', async () => {
    const user = await newUser();
    const { token } = await createSession(direct.db, user.id);
    await cachedInB(token, user.id);
    await deleteSession(a.database.db, token);
    await expect.poll(() => resolveSession(b.database.db, token), { timeout: 2_000 }).toBeNull();
  });

  it('disabling, demoting, a password change or deleting the user: the other process follows', async () => {
    const admin = await newUser('admin');
    const disabled = await newUser();
    const disabledSession = await createSession(direct.db, disabled.id);
    await cachedInB(disabledSession.token, disabled.id);
    await updateUser(a.database.db, disabled.id, { disabled: true }, admin.id);
    await expect.poll(() => resolveSession(b.database.db, disabledSession.token), { timeout: 2_000 }).toBeNull();

    const demoted = await newUser('admin');
    const demotedSession = await createSession(direct.db, demoted.id);
    await cachedInB(demotedSession.token, demoted.id);
    await updateUser(a.database.db, demoted.id, { role: 'user' }, admin.id);
    await expect.poll(async () => (await resolveSession(b.database.db, demotedSession.token))?.role, { timeout: 2_000 }).toBe('user');

    const changer = await newUser();
    const [own, other] = [await createSession(direct.db, changer.id), await createSession(direct.db, changer.id)];
    await cachedInB(other.token, changer.id);
    await changeOwnPassword(a.database.db, changer.id, { currentPassword: 'cache-password-123', newPassword: 'cache-password-456' }, own.token);
    await expect.poll(() => resolveSession(b.database.db, other.token), { timeout: 2_000 }).toBeNull();
    expect((await resolveSession(b.database.db, own.token))?.id).toBe(changer.id);

    const renamed = await newUser();
    const renamedSession = await createSession(direct.db, renamed.id);
    await cachedInB(renamedSession.token, renamed.id);
    await updateProfile(a.database.db, renamed.id, { name: 'New name' });
    await expect.poll(async () => (await resolveSession(b.database.db, renamedSession.token))?.name, { timeout: 2_000 }).toBe('New name');

    const deleted = await newUser();
    const deletedSession = await createSession(direct.db, deleted.id);
    await cachedInB(deletedSession.token, deleted.id);
    await deleteUser(a.database.db, deleted.id, admin.id);
    await expect.poll(() => resolveSession(b.database.db, deletedSession.token), { timeout: 2_000 }).toBeNull();
  });

  it('a cached session stops working when it expires, and unknown tokens are not kept', async () => {
    const user = await newUser();
    const { token } = await createSession(direct.db, user.id, 400);
    expect((await resolveSession(b.database.db, token))?.id).toBe(user.id);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await resolveSession(b.database.db, token)).toBeNull();

    // A session that did not exist when first asked for works as soon as it does (no cached "no").
    const later = 'not-yet-a-session-token';
    expect(await resolveSession(b.database.db, later)).toBeNull();
    await direct.db.insert(sessions).values({ id: `ses_${Date.now()}`, userId: user.id, tokenHash: hashSecret(later), expiresAt: new Date(Date.now() + 60_000) });
    expect((await resolveSession(b.database.db, later))?.id).toBe(user.id);
  });
});

describe('ConfigCache', () => {
  /** A cache on a subscriber connection of its own (and a publisher, unless given), started unless told not to; `close` ends them. */
  async function openCache(prefix: string, options: { publisher?: Redis; start?: boolean } = {}) {
    const publisher = options.publisher ?? new Redis(testRedisUrl());
    const subscriber = new Redis(testRedisUrl());
    const cache = new ConfigCache({ publisher, subscriber, prefix });
    if (options.start !== false) await cache.start();
    const close = async () => {
      await cache.close();
      subscriber.disconnect();
      publisher.disconnect();
    };
    return { cache, subscriber, close };
  }

  it('never keeps a value whose load raced an invalidation', async () => {
    const { cache, close } = await openCache(randomPrefix('race'));
    let release!: () => void;
    let version = 1;
    // Reads the data when it starts, answers later (a slow query).
    const slowLoad = () => {
      const seen = version;
      return new Promise<number>((resolve) => (release = () => resolve(seen)));
    };
    const first = cache.get('agent-config', slowLoad);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A change commits while the load is in flight: the loaded value may predate it.
    version = 2;
    await cache.invalidate(['agent-config']);
    release();
    expect(await first).toBe(1);
    expect(await cache.get('agent-config', async () => version)).toBe(2);
    await close();
  });

  it('drops its entries when the subscriber connection comes back', async () => {
    const { cache, subscriber, close } = await openCache(randomPrefix('reconnect'));
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('agent-config', load)).toBe(1);
    expect(await cache.get('agent-config', load)).toBe(1);
    const ready = new Promise((resolve) => subscriber.once('ready', resolve));
    subscriber.disconnect(true);
    await ready;
    expect(await cache.get('agent-config', load)).toBe(2);
    await close();
  });

  it('serves nothing from memory while its subscriber connection is down (it would miss invalidations)', async () => {
    const { cache, subscriber, close } = await openCache(randomPrefix('down'));
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('auth', load, 'a')).toBe(1);
    expect(await cache.get('auth', load, 'a')).toBe(1);
    const closed = new Promise((resolve) => subscriber.once('close', resolve));
    subscriber.disconnect();
    await closed;
    expect(await cache.get('auth', load, 'a')).toBe(2);
    expect(await cache.get('auth', load, 'a')).toBe(3);
    await close();
  });

  it('publishes an invalidation it could not send as soon as Redis answers again', async () => {
    const prefix = randomPrefix('republish');
    const redis = new Redis(testRedisUrl());
    // The writer's first two publishes fail (cut off from Redis); the reader hears Redis throughout.
    let failures = 2;
    const flaky = {
      publish: (channel: string, message: string) => (failures-- > 0 ? Promise.reject(new Error('Connection is closed.')) : redis.publish(channel, message)),
      disconnect: () => {},
    } as unknown as Redis;
    const [writer, reader] = await Promise.all([openCache(prefix, { publisher: flaky }), openCache(prefix)]);
    let value = 'before';
    expect(await reader.cache.get('agent-config', async () => value)).toBe('before');
    value = 'after';
    await writer.cache.invalidate(['agent-config']);
    await expect.poll(() => reader.cache.get('agent-config', async () => value), { timeout: 3_000 }).toBe('after');
    expect(failures).toBeLessThan(0);
    await Promise.all([writer.close(), reader.close()]);
    redis.disconnect();
  });

  it('does not cache before its subscription is confirmed', async () => {
    const { cache, close } = await openCache(randomPrefix('unstarted'), { start: false });
    let loads = 0;
    await cache.get('agent-config', async () => ++loads);
    await cache.get('agent-config', async () => ++loads);
    expect(loads).toBe(2);
    await close();
  });
});
