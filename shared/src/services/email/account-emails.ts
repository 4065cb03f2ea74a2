import { eq, sql, TransactionRollbackError } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { auditEvents, users, type EmailTokenPurpose } from '../../db/schema';
import { invalidateConfig } from '../config-cache';
import { hashPassword, hasUsablePassword } from '../passwords';
import { revokeCredentials } from '../users';
import { consumeEmailToken, EMAIL_TOKEN_TTL_MS, issueEmailToken } from './email-tokens';
import type { EmailSender } from './send-email';
import { emailLocale, renderAccountEmail } from './templates';

/** The web pages emailed links open; the secret rides in the fragment, which browsers never send to a server (no access log holds it). */
const LINK_PATHS: Record<EmailTokenPurpose, string> = {
  'password-reset': '/reset-password',
  'email-verification': '/verify-email',
};

/** The link an email carries for this secret. */
export function emailLink(publicOrigin: string, purpose: EmailTokenPurpose, token: string): string {
  return `${publicOrigin}${LINK_PATHS[purpose]}#token=${token}`;
}

/** What became of one account email: sent, or why nobody was written to (logged, never told to the asker). */
export type AccountEmailOutcome = 'sent' | 'no-account' | 'disabled' | 'no-password' | 'already-verified';

/**
 * Mails `email`'s account the link for `purpose` when the account may have one: a password reset for
 * an enabled account with a password (single sign-on-only accounts sign in at their provider), a
 * verification link for an enabled, unverified one. The secret is made here, where the mail leaves,
 * so it never waits in a queue. An SMTP failure throws EmailSendError (the job retries).
 */
export async function deliverAccountEmail(db: Database, sender: EmailSender, input: { purpose: EmailTokenPurpose; email: string }): Promise<AccountEmailOutcome> {
  const [user] = await db.select().from(users).where(eq(users.email, input.email.trim().toLowerCase()));
  if (!user) return 'no-account';
  if (user.disabledAt) return 'disabled';
  if (input.purpose === 'password-reset' && !hasUsablePassword(user.passwordHash)) return 'no-password';
  if (input.purpose === 'email-verification' && user.emailVerifiedAt) return 'already-verified';
  const { token } = await issueEmailToken(db, user.id, input.purpose);
  const message = renderAccountEmail(input.purpose, emailLocale(user.locale), {
    name: user.name,
    link: emailLink(sender.settings.publicOrigin, input.purpose, token),
    expiresInMinutes: Math.round(EMAIL_TOKEN_TTL_MS / 60_000),
  });
  await sender.send({ to: user.email, ...message });
  return 'sent';
}

/**
 * "Forgot password?" finished: the emailed secret sets a new password, once. Every session and API
 * token of the account ends with the old password (the person may be locking someone out); the
 * address is verified by the same token. Answers the user's id, or null for a link that is unknown,
 * used, expired, or whose account was disabled or lost its password since.
 */
export async function resetPasswordWithToken(db: Database, input: { token: string; password: string }, context: { clientAddress?: string } = {}): Promise<{ userId: string; revoked: { sessions: number; apiTokens: number } } | null> {
  const passwordHash = await hashPassword(input.password);
  const outcome = await db.transaction(async (tx) => {
    const userId = await consumeEmailToken(tx, input.token, 'password-reset');
    if (!userId) return null;
    const [user] = await tx.select({ disabledAt: users.disabledAt, passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).for('update');
    // Rolls the token's use back too: nothing changed.
    if (!user || user.disabledAt || !hasUsablePassword(user.passwordHash)) tx.rollback();
    await tx.update(users).set({ passwordHash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` }).where(eq(users.id, userId));
    const revoked = await revokeCredentials(tx, userId);
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.password-reset', targetType: 'user', targetId: userId, details: { method: 'email-link', revoked, ...(context.clientAddress && { clientAddress: context.clientAddress }) } });
    return { userId, revoked };
  }).catch((error: unknown) => {
    if (error instanceof TransactionRollbackError) return null;
    throw error;
  });
  if (outcome) await invalidateConfig(db, ['auth']);
  return outcome;
}

/** The emailed verification link followed: the address is the person's. Answers the user's id, or null for a bad link. */
export async function verifyEmailWithToken(db: Database, token: string): Promise<string | null> {
  return db.transaction(async (tx) => {
    const userId = await consumeEmailToken(tx, token, 'email-verification');
    if (!userId) return null;
    await tx.update(users).set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` }).where(eq(users.id, userId));
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.email-verify', targetType: 'user', targetId: userId, details: { method: 'email-link' } });
    return userId;
  });
}
