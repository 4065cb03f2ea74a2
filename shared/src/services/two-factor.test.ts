import { and, eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { auditEvents, users } from '../db/schema';
import { bothTestDatabases } from '../testing';
import { ConflictError, InvalidInputError } from './errors';
import { beginTwoFactorSetup, disableTwoFactor, enableTwoFactor, recoveryCodesLeft, regenerateRecoveryCodes, resetTwoFactor, verifySecondFactor } from './two-factor';
import { createUser, getUser } from './users';

const APP_SECRET = 'two-factor-test-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery';

/** What the user's authenticator app shows `offsetMs` from now. */
const codeAt = (secret: string, offsetMs = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs });

describe.each(bothTestDatabases)('two-factor sign-in on %s', (_name, open) => {
  let database: DbHandle;

  beforeAll(async () => {
    database = await open();
  }, 240_000);
  afterAll(() => database.close());

  const newUser = async () => (await createUser(database.db, { email: `tf-${Math.random().toString(36).slice(2)}@test.local`, name: 'Two', password: PASSWORD, role: 'user' })).id;
  const auditOf = (userId: string, action: string) => database.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, userId), eq(auditEvents.action, action)));

  it('is set up with the password and a first code from the app, then takes each code once, within one step of the clock', async () => {
    const userId = await newUser();
    await expect(beginTwoFactorSetup(database.db, userId, 'wrong password', APP_SECRET)).rejects.toThrow(InvalidInputError);
    const { secret, uri } = await beginTwoFactorSetup(database.db, userId, PASSWORD, APP_SECRET);
    expect(uri).toMatch(new RegExp(`^otpauth://totp/agentq:.+\\?.*secret=${secret}`));
    const [row] = await database.db.select().from(users).where(eq(users.id, userId));
    expect(row!.totpSecretEncrypted).not.toContain(secret);
    // Not on until a code checks out: signing in needs nothing more yet.
    expect((await getUser(database.db, userId)).twoFactor).toBe(false);
    expect(await verifySecondFactor(database.db, userId, codeAt(secret), APP_SECRET)).toBeNull();

    await expect(enableTwoFactor(database.db, userId, '000000' === codeAt(secret) ? '111111' : '000000', APP_SECRET)).rejects.toThrow(InvalidInputError);
    const first = codeAt(secret);
    const { recoveryCodes } = await enableTwoFactor(database.db, userId, first, APP_SECRET);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-f]{5}-[0-9a-f]{5}$/);
    expect((await getUser(database.db, userId)).twoFactor).toBe(true);
    expect(await auditOf(userId, 'user.two-factor-enable')).toHaveLength(1);

    // The code that turned it on is spent; the next step's (a phone a little ahead) is good once.
    expect(await verifySecondFactor(database.db, userId, first, APP_SECRET)).toBeNull();
    const ahead = codeAt(secret, 30_000);
    expect(await verifySecondFactor(database.db, userId, ahead, APP_SECRET)).toBe('totp');
    expect(await verifySecondFactor(database.db, userId, ahead, APP_SECRET)).toBeNull();
    // Two steps off is too far.
    expect(await verifySecondFactor(database.db, userId, codeAt(secret, 95_000), APP_SECRET)).toBeNull();
    expect(await verifySecondFactor(database.db, userId, 'not a code', APP_SECRET)).toBeNull();
    await expect(beginTwoFactorSetup(database.db, userId, PASSWORD, APP_SECRET)).rejects.toThrow(ConflictError);
  });

  it('spends each recovery code once (in either case), and new ones replace the old', async () => {
    const userId = await newUser();
    const { secret } = await beginTwoFactorSetup(database.db, userId, PASSWORD, APP_SECRET);
    const { recoveryCodes } = await enableTwoFactor(database.db, userId, codeAt(secret), APP_SECRET);
    expect(await verifySecondFactor(database.db, userId, recoveryCodes[0]!, APP_SECRET)).toBe('recovery');
    expect(await verifySecondFactor(database.db, userId, recoveryCodes[0]!, APP_SECRET)).toBeNull();
    expect(await verifySecondFactor(database.db, userId, ` ${recoveryCodes[1]!.toUpperCase()} `, APP_SECRET)).toBe('recovery');
    expect(await recoveryCodesLeft(database.db, userId)).toBe(8);

    await expect(regenerateRecoveryCodes(database.db, userId, 'abcde-12345', APP_SECRET)).rejects.toThrow(InvalidInputError);
    const renewed = await regenerateRecoveryCodes(database.db, userId, recoveryCodes[2]!, APP_SECRET);
    expect(await recoveryCodesLeft(database.db, userId)).toBe(10);
    expect(await verifySecondFactor(database.db, userId, recoveryCodes[3]!, APP_SECRET)).toBeNull();
    expect(await verifySecondFactor(database.db, userId, renewed.recoveryCodes[0]!, APP_SECRET)).toBe('recovery');
    expect(await auditOf(userId, 'user.recovery-codes-regenerate')).toHaveLength(1);
  });

  it('is turned off with the password and a code both, or by an admin, audited; off, no code is asked or taken', async () => {
    const userId = await newUser();
    const { secret } = await beginTwoFactorSetup(database.db, userId, PASSWORD, APP_SECRET);
    const { recoveryCodes } = await enableTwoFactor(database.db, userId, codeAt(secret), APP_SECRET);
    await expect(disableTwoFactor(database.db, userId, { password: 'wrong password', code: recoveryCodes[0]! }, APP_SECRET)).rejects.toThrow('Your password is not right');
    await expect(disableTwoFactor(database.db, userId, { password: PASSWORD, code: 'fffff-fffff' }, APP_SECRET)).rejects.toThrow(InvalidInputError);
    expect((await getUser(database.db, userId)).twoFactor).toBe(true);
    await disableTwoFactor(database.db, userId, { password: PASSWORD, code: recoveryCodes[0]! }, APP_SECRET);
    expect((await getUser(database.db, userId)).twoFactor).toBe(false);
    expect(await verifySecondFactor(database.db, userId, recoveryCodes[1]!, APP_SECRET)).toBeNull();
    expect(await auditOf(userId, 'user.two-factor-disable')).toHaveLength(1);
    await expect(disableTwoFactor(database.db, userId, { password: PASSWORD, code: recoveryCodes[1]! }, APP_SECRET)).rejects.toThrow(ConflictError);

    const again = await beginTwoFactorSetup(database.db, userId, PASSWORD, APP_SECRET);
    await enableTwoFactor(database.db, userId, codeAt(again.secret), APP_SECRET);
    const adminId = await newUser();
    await resetTwoFactor(database.db, adminId, userId);
    const [row] = await database.db.select().from(users).where(eq(users.id, userId));
    expect(row).toMatchObject({ totpSecretEncrypted: null, twoFactorEnabledAt: null, recoveryCodeHashes: null });
    expect((await auditOf(userId, 'user.two-factor-reset'))[0]).toMatchObject({ actorUserId: adminId });
    await expect(resetTwoFactor(database.db, adminId, userId)).rejects.toThrow(ConflictError);
  });
});
