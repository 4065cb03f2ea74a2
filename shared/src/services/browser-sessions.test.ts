import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { sessions } from '../db/schema';
import { openTestDb, randomPrefix, testRedisUrl } from '../testing';
import { deleteExpiredSessions, listBrowserSessions, recordSessionActivity, revokeBrowserSession, revokeOtherBrowserSessions } from './browser-sessions';
import { startConfigCache } from './config-cache';
import { describeDevice } from './describe-device';
import { createSession, createUser, resolveSession, resolveSessionCredential, SESSION_TTL_MS } from './users';

describe('describeDevice', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      { browser: 'Chrome', browserVersion: '131', os: 'macOS', type: 'desktop' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      { browser: 'Safari', browserVersion: '17', os: 'iOS', type: 'mobile' },
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', { browser: 'Firefox', browserVersion: '133', os: 'Windows', type: 'desktop' }],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
      { browser: 'Microsoft Edge', browserVersion: '131', os: 'Windows', type: 'desktop' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.135 Mobile Safari/537.36',
      { browser: 'Chrome', browserVersion: '131', os: 'Android', type: 'mobile' },
    ],
    [
      'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      { browser: 'Safari', browserVersion: '17', os: 'iOS', type: 'tablet' },
    ],
  ])('names %s', (userAgent, expected) => {
    expect(describeDevice(userAgent)).toEqual(expected);
  });

  it('says nothing it cannot tell: no header, an empty one, a program', () => {
    const unknown = { browser: null, browserVersion: null, os: null, type: null };
    expect(describeDevice(null)).toEqual(unknown);
    expect(describeDevice('')).toEqual(unknown);
    expect(describeDevice('   ')).toEqual(unknown);
    expect(describeDevice('curl/8.5.0')).toMatchObject({ os: null });
    expect(() => describeDevice('x'.repeat(5_000))).not.toThrow();
  });
});

describe('browser sessions', () => {
  let direct: DbHandle;
  const newUser = () => createUser(direct.db, { email: `devices-${Math.random().toString(36).slice(2, 10)}@test.local`, name: 'Devices', password: 'devices-password-123', role: 'user' });

  beforeAll(async () => {
    direct = await openTestDb();
  });
  afterAll(() => direct?.close());

  it('keeps the device a sign-in described, the User-Agent cut to 512 characters; callers without one still work', async () => {
    const user = await newUser();
    const long = await createSession(direct.db, user.id, SESSION_TTL_MS, { userAgent: `Mozilla/5.0 ${'x'.repeat(2_000)}`, clientAddress: '2001:db8::1' });
    const plain = await createSession(direct.db, user.id);
    const credential = await resolveSessionCredential(direct.db, long.token);
    const listed = await listBrowserSessions(direct.db, user.id, credential!.sessionId);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ current: true, clientAddress: '2001:db8::1' });
    expect(listed[0]!.userAgent).toHaveLength(512);
    expect(listed[1]).toMatchObject({ current: false, userAgent: null, clientAddress: null, device: { browser: null, os: null } });
    expect((await resolveSession(direct.db, plain.token))?.id).toBe(user.id);
  });

  it('writes activity only when the stored time is older than the interval (several processes write once)', async () => {
    const user = await newUser();
    const { token } = await createSession(direct.db, user.id);
    const { sessionId } = (await resolveSessionCredential(direct.db, token))!;
    const later = new Date(Date.now() + 10_000);
    expect(await recordSessionActivity(direct.db, sessionId, 60_000, later)).toBe(false);
    const muchLater = new Date(Date.now() + 120_000);
    const racing = await Promise.all([1, 2, 3].map(() => recordSessionActivity(direct.db, sessionId, 60_000, muchLater)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    const [row] = await direct.db.select().from(sessions).where(eq(sessions.id, sessionId));
    expect(row!.lastSeenAt?.getTime()).toBe(muchLater.getTime());
  });

  it('deletes expired sessions with their device, and never a live one', async () => {
    const user = await newUser();
    const expired = await createSession(direct.db, user.id, 1_000, { userAgent: 'Mozilla/5.0 (old)', clientAddress: '203.0.113.9' });
    const live = await createSession(direct.db, user.id);
    const ids = async () => (await direct.db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.userId, user.id))).length;
    expect(await ids()).toBe(2);
    // Other files' sessions share the database: count only this user's.
    await deleteExpiredSessions(direct.db, { now: new Date(Date.now() + 5_000) });
    expect(await ids()).toBe(1);
    expect(await resolveSession(direct.db, live.token)).not.toBeNull();
    expect(await resolveSession(direct.db, expired.token)).toBeNull();
  });

  it('a revocation through one process ends the session in another process’s cache at once', async () => {
    const prefix = randomPrefix('devices');
    const processes = await Promise.all(
      [1, 2].map(async () => {
        const database = await openTestDb();
        const publisher = new Redis(testRedisUrl());
        const subscriber = new Redis(testRedisUrl());
        const cache = await startConfigCache(database.db, { publisher, subscriber, prefix });
        return {
          db: database.db,
          close: async () => {
            await cache.close();
            subscriber.disconnect();
            publisher.disconnect();
            await database.close();
          },
        };
      }),
    );
    const [a, b] = processes as [(typeof processes)[0], (typeof processes)[0]];
    try {
      const user = await newUser();
      const mine = await createSession(direct.db, user.id);
      const [phone, tablet] = [await createSession(direct.db, user.id), await createSession(direct.db, user.id)];
      for (const session of [mine, phone, tablet]) expect((await resolveSession(b.db, session.token))?.id).toBe(user.id);
      const mineId = (await resolveSessionCredential(a.db, mine.token))!.sessionId;
      const phoneId = (await resolveSessionCredential(a.db, phone.token))!.sessionId;

      expect(await revokeBrowserSession(a.db, { userId: user.id, currentSessionId: mineId }, mineId)).toBe('current');
      expect(await revokeBrowserSession(a.db, { userId: 'user_someone_else', currentSessionId: mineId }, phoneId)).toBe('not-found');
      expect(await revokeBrowserSession(a.db, { userId: user.id, currentSessionId: mineId }, phoneId)).toBe('revoked');
      await expect.poll(() => resolveSession(b.db, phone.token), { timeout: 2_000 }).toBeNull();
      expect((await resolveSession(b.db, tablet.token))?.id).toBe(user.id);

      expect(await revokeOtherBrowserSessions(a.db, { userId: user.id, currentSessionId: mineId })).toBe(1);
      await expect.poll(() => resolveSession(b.db, tablet.token), { timeout: 2_000 }).toBeNull();
      expect((await resolveSession(b.db, mine.token))?.id).toBe(user.id);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
