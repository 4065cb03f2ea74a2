import { createHash, randomBytes } from 'node:crypto';
import { and, asc, count, eq, gt, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { preparedQuery } from '../db/prepared-query';
import {
  type ChangePasswordInput,
  type CreateApiTokenInput,
  type CreateUserInput,
  createUserInputSchema,
  type SignUpInput,
  type UpdateProfileInput,
  type UpdateUserInput,
} from '../api-types/users';
import { apiTokens, auditEvents, sessions, USER_ROLES, users } from '../db/schema';
import { newId } from '../ids';
import { cachedConfig, forgetCachedConfig, invalidateConfig } from './config-cache';
import { ConflictError, InvalidInputError, isUniqueViolation, NotFoundError } from './errors';
import { hashPassword, hasUsablePassword, verifyPassword } from './passwords';
import { groupIdsOfUserColumn } from './groups/groups';
import { keysetPage, keysetQuerySchema, newestFirst } from './keyset-page';
import { containsAllTerms, searchTerms } from './text-search';

export {
  changePasswordInputSchema,
  createApiTokenInputSchema,
  createUserInputSchema,
  signUpInputSchema,
  updateProfileInputSchema,
  updateUserInputSchema,
  type ChangePasswordInput,
  type CreateApiTokenInput,
  type CreateUserInput,
  type SignUpInput,
  type UpdateProfileInput,
  type UpdateUserInput,
} from '../api-types/users';

export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const API_TOKEN_PREFIX = 'aq_';

export const publicUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  /** A disabled user cannot sign in and none of their sessions or API tokens work. */
  disabled: z.boolean(),
  /** When an admin disabled the account; null while it is active. */
  disabledAt: z.date().nullable(),
  /** The UI language the user picked; null follows the browser. */
  locale: z.string().nullable(),
  /** Signing in takes a code from an authenticator app too (two-factor.ts). */
  twoFactor: z.boolean(),
  /** Signed up and waiting for an admin's approval (sign-up.ts): cannot sign in until approved. */
  awaitingApproval: z.boolean(),
  /** False for a sign-up that has not followed the link mailed to it yet (SIGNUP_VERIFY_EMAIL): cannot sign in until it does or an admin marks it verified. */
  emailVerified: z.boolean(),
  createdAt: z.date(),
});
export type PublicUser = z.infer<typeof publicUserSchema>;

/**
 * The signed-in user as they see themselves and as the auth cache keeps them: PublicUser and what
 * only they may read. Admin lists and other users get PublicUser.
 */
export const ownUserSchema = publicUserSchema.extend({
  /** Their standing instructions to every chat run (custom instructions); null for none. */
  customInstructions: z.string().nullable(),
  /** False for an account made by single sign-on: it signs in only through the provider until an admin sets a password. */
  hasPassword: z.boolean(),
});
export type OwnUser = z.infer<typeof ownUserSchema>;

function toPublicUser(row: typeof users.$inferSelect): PublicUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabledAt !== null,
    disabledAt: row.disabledAt,
    locale: row.locale,
    twoFactor: row.twoFactorEnabledAt !== null,
    awaitingApproval: row.awaitingApprovalSince !== null,
    emailVerified: row.emailVerifiedAt !== null,
    createdAt: row.createdAt,
  };
}

export function toOwnUser(row: typeof users.$inferSelect): OwnUser {
  return { ...toPublicUser(row), customInstructions: row.customInstructions, hasPassword: hasUsablePassword(row.passwordHash) };
}

/** sha256 of a bearer secret: only hashes are stored, so a database leak reveals no usable token. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export async function createUser(db: Database, input: CreateUserInput, actorUserId: string | null = null): Promise<PublicUser> {
  const id = newId('user');
  try {
    const [row] = await db
      .insert(users)
      .values({ id, email: input.email, name: input.name, role: input.role, passwordHash: await hashPassword(input.password) })
      .returning();
    await db.insert(auditEvents).values({ actorUserId, action: 'user.create', targetType: 'user', targetId: id, details: { role: input.role } });
    return toPublicUser(row!);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A user with email ${input.email} already exists`);
    throw error;
  }
}

/**
 * A person's own account from the sign-in page (routes/sign-up.ts): role user, and with
 * `awaitingApproval` unable to sign in until an admin approves it; with `verifyEmail` unverified until
 * the link mailed to it is followed (services/email). ConflictError for a taken email.
 */
export async function signUpUser(db: Database, input: SignUpInput, options: { awaitingApproval: boolean; verifyEmail?: boolean }): Promise<OwnUser> {
  const id = newId('user');
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(users)
        .values({ id, email: input.email, name: input.name, role: 'user', passwordHash: await hashPassword(input.password), awaitingApprovalSince: options.awaitingApproval ? new Date() : null, ...(options.verifyEmail && { emailVerifiedAt: null }) })
        .returning();
      await tx.insert(auditEvents).values({ actorUserId: id, action: 'user.create', targetType: 'user', targetId: id, details: { role: 'user', method: 'sign-up', ...(options.awaitingApproval && { awaitingApproval: true }), ...(options.verifyEmail && { emailVerification: true }) } });
      return toOwnUser(row!);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('An account with this email exists already: sign in instead');
    throw error;
  }
}

export const userListQuerySchema = keysetQuerySchema.extend({
  /** Finds users whose email or name holds every word (case-insensitive). */
  q: z.string().trim().max(200).optional(),
  /** `true`: only sign-ups waiting for an admin's approval; `false`: everyone else. */
  awaitingApproval: z.enum(['true', 'false']).optional(),
  /** `false`: only sign-ups whose email is not verified yet; `true`: everyone else. */
  emailVerified: z.enum(['true', 'false']).optional(),
});
export type UserListQuery = z.input<typeof userListQuerySchema>;

/**
 * Users, newest first, a page at a time (see keyset-page.ts), so one just created heads the list;
 * `total` counts every match.
 */
export async function listUsers(db: Database, query: UserListQuery = {}): Promise<{ items: PublicUser[]; total: number; nextCursor: string | null }> {
  const { limit, cursor, q, awaitingApproval, emailVerified } = userListQuerySchema.parse(query);
  const order = newestFirst(users.createdAt, users.id);
  const terms = q ? searchTerms(q) : [];
  const matches = and(
    terms.length > 0 ? containsAllTerms(sql`(${users.email} || ' ' || ${users.name})`, terms) : undefined,
    awaitingApproval === undefined ? undefined : awaitingApproval === 'true' ? isNotNull(users.awaitingApprovalSince) : isNull(users.awaitingApprovalSince),
    emailVerified === undefined ? undefined : emailVerified === 'true' ? isNotNull(users.emailVerifiedAt) : isNull(users.emailVerifiedAt),
  );
  const [rows, [counted]] = await Promise.all([
    db
      .select({ user: users, position: order.position })
      .from(users)
      .where(and(matches, order.after(cursor)))
      .orderBy(...order.orderBy)
      .limit(limit + 1),
    db.select({ total: count() }).from(users).where(matches),
  ]);
  return { ...keysetPage(rows, limit, (row) => toPublicUser(row.user)), total: counted?.total ?? 0 };
}

export async function getUser(db: Database, id: string): Promise<PublicUser> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  if (!row) throw new NotFoundError('User', id);
  return toPublicUser(row);
}

/**
 * An admin's change to a user. A new password or disabling ends the user's sessions and tokens; an
 * admin resetting their own password keeps `keepSessionToken`, the session that made the change
 * (as a self-service change does), instead of being signed out by it.
 */
export async function updateUser(db: Database, id: string, input: UpdateUserInput, actorUserId: string, keepSessionToken?: string): Promise<PublicUser> {
  if (input.disabled === true && id === actorUserId) throw new ConflictError('You cannot disable your own account');
  const changes: Partial<typeof users.$inferInsert> = {};
  if (input.name !== undefined) changes.name = input.name;
  // A role set by hand is the admin's decision: SSO groups no longer take it back (services/oidc/accounts.ts).
  if (input.role !== undefined) Object.assign(changes, { role: input.role, adminBySsoGroup: false });
  if (input.password !== undefined) changes.passwordHash = await hashPassword(input.password);
  if (input.approved) changes.awaitingApprovalSince = null;
  if (input.emailVerified) changes.emailVerifiedAt = new Date();
  if (input.disabled !== undefined) {
    if (input.disabled && id === actorUserId) throw new ConflictError('You cannot disable your own account');
    changes.disabledAt = input.disabled ? new Date() : null;
  }
  // The new password (or the disabled flag), the revocation and the audit row commit together: a
  // failure half-way never leaves old cookies or tokens working with a reset password.
  const updated = await db.transaction(async (tx) => {
    const [row] = Object.keys(changes).length
      ? await tx.update(users).set(changes).where(eq(users.id, id)).returning()
      : await tx.select().from(users).where(eq(users.id, id));
    if (!row) throw new NotFoundError('User', id);
    // A reset password or a disabled account must not leave a way in: old cookies and tokens die with it.
    if (input.password !== undefined || input.disabled === true) await revokeCredentials(tx, id, id === actorUserId ? keepSessionToken : undefined);
    await tx.insert(auditEvents).values({
      actorUserId,
      action: 'user.update',
      targetType: 'user',
      targetId: id,
      details: { fields: Object.keys(input).filter((key) => key !== 'password').concat(input.password ? ['password'] : []) },
    });
    return toPublicUser(row);
  });
  // After the commit: a session read in between would otherwise be cached with the old user.
  await invalidateConfig(db, ['auth']);
  return updated;
}

/**
 * The signed-in user's own name, UI language and custom instructions. Every process's cached copy of
 * the user is dropped, so their next run carries the new instructions.
 */
export async function updateProfile(db: Database, userId: string, input: UpdateProfileInput): Promise<OwnUser> {
  const changes: Partial<typeof users.$inferInsert> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.locale !== undefined) changes.locale = input.locale;
  if (input.customInstructions !== undefined) changes.customInstructions = input.customInstructions;
  const [row] = Object.keys(changes).length
    ? await db.update(users).set(changes).where(eq(users.id, userId)).returning()
    : await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw new NotFoundError('User', userId);
  await invalidateConfig(db, ['auth']);
  return toOwnUser(row);
}

/** The current password did not match: the change is refused. */
export class WrongPasswordError extends InvalidInputError {
  override name = 'WrongPasswordError';
  constructor() {
    super('The current password is not correct', [{ path: ['currentPassword'], message: 'The current password is not correct' }]);
  }
}

/**
 * Ends every session and API token of a user; `keepSessionToken` spares the session that asked
 * (a self-service password change keeps its own browser signed in). Returns how many were revoked.
 * Inside a caller's transaction (`db` a `tx`), the caller drops the cached sessions after its commit.
 */
export async function revokeCredentials(db: Database, userId: string, keepSessionToken?: string): Promise<{ sessions: number; apiTokens: number }> {
  const revoked = await db.transaction(async (tx) => {
    const sessionFilter = keepSessionToken
      ? and(eq(sessions.userId, userId), ne(sessions.tokenHash, hashSecret(keepSessionToken)))
      : eq(sessions.userId, userId);
    const endedSessions = await tx.delete(sessions).where(sessionFilter).returning({ id: sessions.id });
    const endedTokens = await tx.delete(apiTokens).where(eq(apiTokens.userId, userId)).returning({ id: apiTokens.id });
    return { sessions: endedSessions.length, apiTokens: endedTokens.length };
  });
  await invalidateConfig(db, ['auth']);
  return revoked;
}

/**
 * Self-service password change: checks the current password, stores the new one and revokes every
 * other session and every API token of the user (all but `keepSessionToken`, the caller's own session).
 */
export async function changeOwnPassword(db: Database, userId: string, input: ChangePasswordInput, keepSessionToken?: string) {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw new NotFoundError('User', userId);
  if (!(await verifyPassword(input.currentPassword, row.passwordHash))) {
    throw new WrongPasswordError();
  }
  const passwordHash = await hashPassword(input.newPassword);
  // The new password and the revocation commit together (see updateUser).
  const revoked = await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    const revoked = await revokeCredentials(tx, userId, keepSessionToken);
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.password-change', targetType: 'user', targetId: userId, details: { revoked } });
    return revoked;
  });
  await invalidateConfig(db, ['auth']);
  return revoked;
}

export async function deleteUser(db: Database, id: string, actorUserId: string): Promise<void> {
  if (id === actorUserId) throw new ConflictError('You cannot delete your own account');
  const deleted = await db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
  if (deleted.length === 0) throw new NotFoundError('User', id);
  await invalidateConfig(db, ['auth']);
  await db.insert(auditEvents).values({ actorUserId, action: 'user.delete', targetType: 'user', targetId: id });
}

/**
 * Returns the user when the password matches; the same work is done for unknown emails and for
 * accounts without a password (single sign-on) to avoid a timing oracle.
 */
export async function authenticate(db: Database, email: string, password: string): Promise<OwnUser | null> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
  const usable = row !== undefined && hasUsablePassword(row.passwordHash);
  const ok = await verifyPassword(password, usable ? row.passwordHash : DUMMY_HASH);
  return row && usable && ok && row.disabledAt === null ? toOwnUser(row) : null;
}
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + Buffer.alloc(64).toString('base64');

/** The browser a session is signed in from, as the sign-in request described it ("Where you're signed in"). */
export type SessionDevice = { userAgent?: string | null; clientAddress?: string | null };

/** Longest User-Agent kept: real ones are far shorter; the cut stops a client filling the table. */
export const SESSION_USER_AGENT_MAX_CHARS = 512;

/**
 * Creates a session and returns the cookie value (shown to the browser only). `device` is what the
 * sign-in request said about itself, listed to the user later; callers without one still compile.
 */
export async function createSession(db: Database, userId: string, ttlMs = SESSION_TTL_MS, device: SessionDevice = {}) {
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs);
  await db.insert(sessions).values({
    id: newId('session'),
    userId,
    tokenHash: hashSecret(token),
    expiresAt,
    userAgent: device.userAgent?.slice(0, SESSION_USER_AGENT_MAX_CHARS) || null,
    clientAddress: device.clientAddress?.slice(0, 100) || null,
    // Signing in is activity: the first requests after it then write nothing.
    lastSeenAt: now,
    createdAt: now,
  });
  return { token, expiresAt };
}

/** Every request with a cookie asks this: prepared once. */
const userOfSession = preparedQuery((db) =>
  db
    .select({ user: users, groupIds: groupIdsOfUserColumn, sessionId: sessions.id, expiresAt: sessions.expiresAt, lastSeenAt: sessions.lastSeenAt, createdAt: sessions.createdAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sql.placeholder('tokenHash')), gt(sessions.expiresAt, sql.placeholder('now')), isNull(users.disabledAt)))
    .prepare('user_of_session'),
);

/**
 * A signed-in session as the auth cache keeps it: the user, which session, and when it was last
 * seen active as loaded (epoch ms; the cached copy is not refreshed by activity writes).
 */
export type SessionCredential = { user: SignedInUser; sessionId: string; lastSeenAt: number; expiresAt: number };

/** The user behind a request: themselves (OwnUser) and the ids of the groups they are in, read in the same statement (the send path's access checks read no more). */
export type SignedInUser = OwnUser & { groupIds: string[] };

async function loadSession(db: Database, tokenHash: string): Promise<SessionCredential | null> {
  // Placeholder values skip the column's mapping to the driver: the time goes as text, as drizzle would send it.
  const [row] = await userOfSession(db).execute({ tokenHash, now: new Date().toISOString() });
  if (!row) return null;
  return { user: { ...toOwnUser(row.user), groupIds: row.groupIds }, sessionId: row.sessionId, lastSeenAt: (row.lastSeenAt ?? row.createdAt).getTime(), expiresAt: row.expiresAt.getTime() };
}

/**
 * The session behind this cookie, or null. Read through the `auth` cache (every request asks; a
 * sign-out, revocation or user change drops it in every process), keyed by the token's hash;
 * unknown and expired sessions are not kept.
 */
export async function resolveSessionCredential(db: Database, token: string): Promise<SessionCredential | null> {
  const tokenHash = hashSecret(token);
  const found = await cachedConfig(db, 'auth', () => loadSession(db, tokenHash), tokenHash);
  if (found && found.expiresAt > Date.now()) return found;
  forgetCachedConfig(db, 'auth', tokenHash);
  return null;
}

/** The user signed in with this session cookie, or null (see resolveSessionCredential). */
export async function resolveSession(db: Database, token: string): Promise<SignedInUser | null> {
  return (await resolveSessionCredential(db, token))?.user ?? null;
}

export async function deleteSession(db: Database, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, hashSecret(token)));
  await invalidateConfig(db, ['auth']);
}

/** Creates an API token; the secret is in the return value and nowhere else. */
export async function createApiToken(db: Database, userId: string, input: CreateApiTokenInput) {
  const secret = API_TOKEN_PREFIX + randomBytes(24).toString('base64url');
  const id = newId('apiToken');
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86400_000) : null;
  const [row] = await db
    .insert(apiTokens)
    .values({ id, userId, name: input.name, tokenHash: hashSecret(secret), tokenPrefix: secret.slice(0, 8), expiresAt })
    .returning();
  await db.insert(auditEvents).values({ actorUserId: userId, action: 'api-token.create', targetType: 'api-token', targetId: id });
  return { ...toPublicToken(row!), token: secret };
}

function toPublicToken(row: typeof apiTokens.$inferSelect) {
  return { id: row.id, name: row.name, tokenPrefix: row.tokenPrefix, lastUsedAt: row.lastUsedAt, expiresAt: row.expiresAt, createdAt: row.createdAt };
}

export async function listApiTokens(db: Database, userId: string) {
  const rows = await db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(asc(apiTokens.createdAt));
  return rows.map(toPublicToken);
}

export async function revokeApiToken(db: Database, userId: string, id: string): Promise<void> {
  const deleted = await db.delete(apiTokens).where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId))).returning({ id: apiTokens.id });
  if (deleted.length === 0) throw new NotFoundError('API token', id);
  await db.insert(auditEvents).values({ actorUserId: userId, action: 'api-token.revoke', targetType: 'api-token', targetId: id });
}

/** How stale a token's "last used" may get: a client sending many requests writes it once a minute, not on each. */
const LAST_USED_PRECISION_MS = 60_000;

/** The user behind a bearer token, or null when unknown, revoked or expired. */
export async function resolveApiToken(db: Database, token: string): Promise<SignedInUser | null> {
  if (!token.startsWith(API_TOKEN_PREFIX)) return null;
  const [row] = await db
    .select({ user: users, groupIds: groupIdsOfUserColumn, tokenId: apiTokens.id, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(
      and(eq(apiTokens.tokenHash, hashSecret(token)), or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, new Date())), isNull(users.disabledAt)),
    );
  if (!row) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_PRECISION_MS) {
    await db.update(apiTokens).set({ lastUsedAt: new Date() }).where(eq(apiTokens.id, row.tokenId));
  }
  return { ...toOwnUser(row.user), groupIds: row.groupIds };
}

/**
 * Creates the bootstrap admin from ADMIN_EMAIL/ADMIN_PASSWORD if no user has that email yet.
 * Returns whether a user was created.
 */
export async function ensureAdmin(db: Database, email: string, password: string): Promise<boolean> {
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.trim().toLowerCase()));
  if (existing) return false;
  await createUser(db, createUserInputSchema.parse({ email, name: 'Administrator', password, role: 'admin' }));
  return true;
}

export async function countUsers(db: Database): Promise<number> {
  const [row] = await db.select({ value: count() }).from(users);
  return row?.value ?? 0;
}

/** Admins on record; a process that finds none tells the operator how to create one. */
export async function countAdmins(db: Database): Promise<number> {
  const [row] = await db.select({ value: count() }).from(users).where(eq(users.role, 'admin'));
  return row?.value ?? 0;
}
