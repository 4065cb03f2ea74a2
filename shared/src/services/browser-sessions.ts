import { and, desc, eq, gt, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { DeviceView } from '../api-types/browser-sessions';
import type { Database } from '../db/client';
import { sessions } from '../db/schema';
import { recordAudit } from './audit';
import { invalidateConfig } from './config-cache';
import { describeDevice } from './describe-device';

/**
 * "Where you're signed in": a user's own browser sessions, with the device each signed in from,
 * and signing one or all the others out. A revocation deletes the row and drops every process's
 * `auth` cache after the commit, so the cookie stops working at once everywhere; each is audited.
 * Nothing here returns a session's token or its hash.
 */

/** How stale "last active" may get: a session in use writes it at most this often. */
export const SESSION_ACTIVITY_INTERVAL_MS = 5 * 60_000;

/** A browser session as its owner sees it (dates as Date; the API sends ISO strings). */
export type BrowserSession = {
  id: string;
  device: DeviceView;
  userAgent: string | null;
  clientAddress: string | null;
  signedInAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  current: boolean;
};

/**
 * The user's unexpired sessions, most recently active first. `currentSessionId` marks the caller's
 * own (it is in use right now, so it is listed as active now and comes first).
 */
export async function listBrowserSessions(db: Database, userId: string, currentSessionId?: string): Promise<BrowserSession[]> {
  const lastSeen = sql<Date>`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt})`;
  const rows = await db
    .select({
      id: sessions.id,
      userAgent: sessions.userAgent,
      clientAddress: sessions.clientAddress,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date())))
    .orderBy(desc(lastSeen), desc(sessions.id));
  const now = new Date();
  const listed = rows.map((row): BrowserSession => {
    const current = row.id === currentSessionId;
    return {
      id: row.id,
      device: describeDevice(row.userAgent),
      userAgent: row.userAgent,
      clientAddress: row.clientAddress,
      signedInAt: row.createdAt,
      lastSeenAt: current ? now : (row.lastSeenAt ?? row.createdAt),
      expiresAt: row.expiresAt,
      current,
    };
  });
  return listed.sort((a, b) => Number(b.current) - Number(a.current));
}

/** Who asks for a revocation: the user, the session they ask with (spared), and from where (audited). */
export type SessionRevoker = { userId: string; currentSessionId?: string; clientAddress?: string };

/**
 * Signs one of the user's sessions out. `'current'` for the caller's own (that is a sign-out, which
 * also clears the cookie), `'not-found'` for an unknown id or another user's session.
 */
export async function revokeBrowserSession(db: Database, revoker: SessionRevoker, sessionId: string): Promise<'revoked' | 'not-found' | 'current'> {
  if (sessionId === revoker.currentSessionId) return 'current';
  const revoked = await db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(sessions)
      .where(and(eq(sessions.id, sessionId), eq(sessions.userId, revoker.userId)))
      .returning({ id: sessions.id });
    if (!deleted) return false;
    await recordAudit(tx, {
      actorUserId: revoker.userId,
      action: 'auth.session-revoke',
      targetType: 'session',
      targetId: sessionId,
      details: { ...(revoker.clientAddress && { clientAddress: revoker.clientAddress }) },
    });
    return true;
  });
  if (!revoked) return 'not-found';
  // After the commit: a read in between would otherwise cache the session again.
  await invalidateConfig(db, ['auth']);
  return 'revoked';
}

/**
 * Signs out every unexpired session of the user but the caller's own ("Sign out all other
 * sessions"); from an API token (no current session) that is all of them. Answers how many.
 */
export async function revokeOtherBrowserSessions(db: Database, revoker: SessionRevoker): Promise<number> {
  const others = and(
    eq(sessions.userId, revoker.userId),
    gt(sessions.expiresAt, new Date()),
    revoker.currentSessionId ? ne(sessions.id, revoker.currentSessionId) : undefined,
  );
  const revoked = await db.transaction(async (tx) => {
    const deleted = await tx.delete(sessions).where(others).returning({ id: sessions.id });
    if (deleted.length > 0) {
      await recordAudit(tx, {
        actorUserId: revoker.userId,
        action: 'auth.sessions-revoke-others',
        targetType: 'user',
        targetId: revoker.userId,
        details: { revoked: deleted.length, ...(revoker.clientAddress && { clientAddress: revoker.clientAddress }) },
      });
    }
    return deleted.length;
  });
  if (revoked > 0) await invalidateConfig(db, ['auth']);
  return revoked;
}

/**
 * Moves a session's "last active" to `now` unless another process did so within `intervalMs`
 * (the condition makes concurrent API processes write once). The `auth` cache is left alone on
 * purpose: dropping it on activity would cost every process a reload per request burst.
 */
export async function recordSessionActivity(db: Database, sessionId: string, intervalMs = SESSION_ACTIVITY_INTERVAL_MS, now = new Date()): Promise<boolean> {
  const stale = new Date(now.getTime() - intervalMs);
  const updated = await db
    .update(sessions)
    .set({ lastSeenAt: now })
    .where(and(eq(sessions.id, sessionId), or(isNull(sessions.lastSeenAt), lt(sessions.lastSeenAt, stale))))
    .returning({ id: sessions.id });
  return updated.length > 0;
}

/**
 * Deletes up to `limit` sessions that expired (their cookie no longer works): they would otherwise
 * keep a User-Agent and an address for ever. The workers' reconciler runs it hourly.
 */
export async function deleteExpiredSessions(db: Database, { limit = 5_000, now = new Date() }: { limit?: number; now?: Date } = {}): Promise<number> {
  const expired = db.select({ id: sessions.id }).from(sessions).where(lt(sessions.expiresAt, now)).limit(limit);
  const deleted = await db.delete(sessions).where(and(inArray(sessions.id, expired), lt(sessions.expiresAt, now))).returning({ id: sessions.id });
  return deleted.length;
}
