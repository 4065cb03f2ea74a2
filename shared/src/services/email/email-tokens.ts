import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { emailTokens, type EmailTokenPurpose } from '../../db/schema';
import { newId } from '../../ids';
import { hashSecret } from '../users';

/** How long an emailed link works. */
export const EMAIL_TOKEN_TTL_MS = 60 * 60 * 1000;

/**
 * A new single-use secret for `userId`'s `purpose`, returned once (the database keeps its sha256).
 * Older secrets of the same purpose stop working: only the newest email's link does.
 */
export async function issueEmailToken(db: Database, userId: string, purpose: EmailTokenPurpose, ttlMs = EMAIL_TOKEN_TTL_MS): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlMs);
  await db.transaction(async (tx) => {
    await tx.delete(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, purpose)));
    await tx.insert(emailTokens).values({ id: newId('emailToken'), userId, purpose, tokenHash: hashSecret(token), expiresAt });
  });
  return { token, expiresAt };
}

/**
 * Uses up an emailed secret: answers its user's id when it is of this purpose, unused and unexpired,
 * and marks it used in the same statement (two concurrent uses: one wins). Null otherwise. Call it
 * inside the transaction that does what the link allows, so a failure leaves the link usable.
 */
export async function consumeEmailToken(db: Database, token: string, purpose: EmailTokenPurpose): Promise<string | null> {
  const [row] = await db
    .update(emailTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(emailTokens.tokenHash, hashSecret(token)), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, new Date())))
    .returning({ userId: emailTokens.userId });
  return row?.userId ?? null;
}

/** Deletes emailed secrets that can no longer be used (expired or used): the workers' hourly sweep. Answers how many. */
export async function deleteDeadEmailTokens(db: Database, now = new Date()): Promise<number> {
  const deleted = await db.delete(emailTokens).where(or(lt(emailTokens.expiresAt, now), isNotNull(emailTokens.usedAt))).returning({ id: emailTokens.id });
  return deleted.length;
}
