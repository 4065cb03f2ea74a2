import { randomBytes } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { z } from 'zod';
import type { Database } from '../db/client';
import { auditEvents, users } from '../db/schema';
import { invalidateConfig } from './config-cache';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import { verifyPassword } from './passwords';
import { decryptSecret, encryptSecret } from './secrets';
import { hashSecret } from './users';

/**
 * Two-factor sign-in with an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 s, as every
 * app reads an `otpauth://` URI), and ten single-use recovery codes for a lost phone. Setup stores
 * the secret (encrypted under APP_SECRET) and turns it on only once a code from the app checks out,
 * so nobody is locked out by a mistyped secret. A code is good for one sign-in: the step it was
 * accepted for is kept, and an earlier or equal step is refused (a code seen over a shoulder
 * cannot be replayed). Every change is audited; the secret and the codes never are.
 */

const ISSUER = 'agentq';
/** One step either side: a phone's clock a little off still signs in. */
const WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;

/** A code as typed: six digits (spaces allowed), or a recovery code `xxxxx-xxxxx`. */
export const secondFactorCodeSchema = z
  .string()
  .trim()
  .min(1, 'Enter the code from your authenticator app')
  .max(40, 'That is not a code: 6 digits, or a recovery code such as 3f9a1-c07b2');

export const beginTwoFactorInputSchema = z.object({ password: z.string().min(1, 'Enter your password').max(200) });
export const enableTwoFactorInputSchema = z.object({ code: secondFactorCodeSchema });
export const disableTwoFactorInputSchema = z.object({
  password: z.string().min(1, 'Enter your password').max(200),
  code: secondFactorCodeSchema,
});

function totpOf(email: string, secret: Secret): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: 30, secret });
}

async function rowOf(db: Database, userId: string) {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw new NotFoundError('User', userId);
  return row;
}

function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = randomBytes(5).toString('hex');
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
  return { codes, hashes: codes.map(hashSecret) };
}

/**
 * Starts (or restarts) setup: a new secret, stored but not yet in force. Answers it as text and as
 * the `otpauth://` URI the app scans; 409 while two-factor is on.
 */
export async function beginTwoFactorSetup(db: Database, userId: string, password: string, appSecret: string): Promise<{ secret: string; uri: string }> {
  const row = await rowOf(db, userId);
  if (row.twoFactorEnabledAt) throw new ConflictError('Two-factor sign-in is already on; turn it off first to set it up again');
  // The password again: a stolen session must not be able to lock its owner out with its own app.
  if (!(await verifyPassword(password, row.passwordHash))) throw wrongPassword();
  const secret = new Secret({ size: 20 });
  await db.update(users).set({ totpSecretEncrypted: encryptSecret(secret.base32, appSecret), totpLastStep: null, recoveryCodeHashes: null }).where(eq(users.id, userId));
  return { secret: secret.base32, uri: totpOf(row.email, secret).toString() };
}

/** The time step `code` is valid for under the user's secret, or null. */
function totpStep(row: typeof users.$inferSelect, code: string, appSecret: string): number | null {
  if (!row.totpSecretEncrypted || !/^\d{6}$/.test(code)) return null;
  const totp = totpOf(row.email, Secret.fromBase32(decryptSecret(row.totpSecretEncrypted, appSecret)));
  // One clock reading for both: a check on a step's edge must not name the next step.
  const timestamp = Date.now();
  const delta = totp.validate({ token: code, window: WINDOW, timestamp });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}

/** Accepts `step` once: only when it is later than the last accepted one (two racing sign-ins: one wins). */
async function claimStep(db: Database, userId: string, step: number): Promise<boolean> {
  const claimed = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return claimed.length > 0;
}

/** Uses recovery code `code` up, when it is one of the user's unused ones. */
async function useRecoveryCode(db: Database, userId: string, code: string): Promise<boolean> {
  const hash = hashSecret(code.toLowerCase());
  const used = await db
    .update(users)
    .set({ recoveryCodeHashes: sql`${users.recoveryCodeHashes} - ${hash}::text` })
    .where(and(eq(users.id, userId), sql`jsonb_exists(${users.recoveryCodeHashes}, ${hash})`))
    .returning({ id: users.id });
  return used.length > 0;
}

/**
 * Checks a second factor at sign-in (or before turning it off): a current TOTP code not used
 * before, or an unused recovery code, which is then spent. Answers what it was, or null.
 */
export async function verifySecondFactor(db: Database, userId: string, code: string, appSecret: string): Promise<'totp' | 'recovery' | null> {
  const row = await rowOf(db, userId);
  if (!row.twoFactorEnabledAt) return null;
  const typed = code.replace(/\s+/g, '');
  const step = totpStep(row, typed, appSecret);
  if (step !== null) return (await claimStep(db, userId, step)) ? 'totp' : null;
  if (/^[0-9a-f]{5}-[0-9a-f]{5}$/i.test(typed)) return (await useRecoveryCode(db, userId, typed)) ? 'recovery' : null;
  return null;
}

const wrongPassword = () => new InvalidInputError('Your password is not right', [{ path: ['password'], message: 'Wrong password' }]);
const wrongCode = () => new InvalidInputError('That code is not right: enter the current one from your authenticator app', [{ path: ['code'], message: 'Wrong or expired code' }]);

/**
 * Turns two-factor on with a first code from the app, and answers the recovery codes (the only
 * time they are shown). 409 without a setup begun or when already on; 400 for a wrong code.
 */
export async function enableTwoFactor(db: Database, userId: string, code: string, appSecret: string): Promise<{ recoveryCodes: string[] }> {
  const row = await rowOf(db, userId);
  if (row.twoFactorEnabledAt) throw new ConflictError('Two-factor sign-in is already on');
  if (!row.totpSecretEncrypted) throw new ConflictError('Start the setup first: scan the code, then enter what the app shows');
  const step = totpStep(row, code.replace(/\s+/g, ''), appSecret);
  if (step === null) throw wrongCode();
  const { codes, hashes } = newRecoveryCodes();
  await db.transaction(async (tx) => {
    await tx.update(users).set({ twoFactorEnabledAt: new Date(), totpLastStep: step, recoveryCodeHashes: hashes }).where(eq(users.id, userId));
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.two-factor-enable', targetType: 'user', targetId: userId });
  });
  await invalidateConfig(db, ['auth']);
  return { recoveryCodes: codes };
}

/** New recovery codes in place of the old ones (a code from the app or a recovery code proves it is you). */
export async function regenerateRecoveryCodes(db: Database, userId: string, code: string, appSecret: string): Promise<{ recoveryCodes: string[] }> {
  if (!(await rowOf(db, userId)).twoFactorEnabledAt) throw new ConflictError('Two-factor sign-in is off');
  if (!(await verifySecondFactor(db, userId, code, appSecret))) throw wrongCode();
  const { codes, hashes } = newRecoveryCodes();
  await db.transaction(async (tx) => {
    await tx.update(users).set({ recoveryCodeHashes: hashes }).where(eq(users.id, userId));
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.recovery-codes-regenerate', targetType: 'user', targetId: userId });
  });
  return { recoveryCodes: codes };
}

const cleared = { totpSecretEncrypted: null, twoFactorEnabledAt: null, totpLastStep: null, recoveryCodeHashes: null };

/** Turns two-factor off: the password and a code (or a recovery code) both, as a thief has neither. */
export async function disableTwoFactor(db: Database, userId: string, input: z.infer<typeof disableTwoFactorInputSchema>, appSecret: string): Promise<void> {
  const row = await rowOf(db, userId);
  if (!row.twoFactorEnabledAt) throw new ConflictError('Two-factor sign-in is already off');
  if (!(await verifyPassword(input.password, row.passwordHash))) throw wrongPassword();
  if (!(await verifySecondFactor(db, userId, input.code, appSecret))) throw wrongCode();
  await db.transaction(async (tx) => {
    await tx.update(users).set(cleared).where(eq(users.id, userId));
    await tx.insert(auditEvents).values({ actorUserId: userId, action: 'user.two-factor-disable', targetType: 'user', targetId: userId });
  });
  await invalidateConfig(db, ['auth']);
}

/** An admin's reset for a user who lost the phone and the codes: two-factor off, audited with who did it. */
export async function resetTwoFactor(db: Database, actorUserId: string, userId: string): Promise<void> {
  const row = await rowOf(db, userId);
  if (!row.twoFactorEnabledAt && !row.totpSecretEncrypted) throw new ConflictError('This user has no two-factor sign-in to reset');
  await db.transaction(async (tx) => {
    await tx.update(users).set(cleared).where(eq(users.id, userId));
    await tx.insert(auditEvents).values({ actorUserId, action: 'user.two-factor-reset', targetType: 'user', targetId: userId });
  });
  await invalidateConfig(db, ['auth']);
}

/** How many recovery codes are left (the account page warns when few are). */
export async function recoveryCodesLeft(db: Database, userId: string): Promise<number> {
  return (await rowOf(db, userId)).recoveryCodeHashes?.length ?? 0;
}
