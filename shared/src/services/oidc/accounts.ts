import { and, eq } from 'drizzle-orm';
import type { SsoError } from '../../api-types/sso';
import type { Database } from '../../db/client';
import { auditEvents, userIdentities, users } from '../../db/schema';
import { newId } from '../../ids';
import { invalidateConfig } from '../config-cache';
import { isUniqueViolation } from '../errors';
import { NO_PASSWORD_HASH } from '../passwords';
import { toOwnUser, type OwnUser } from '../users';
import { inEmailDomains } from '../email-domains';
import { displayNameFromClaims, groupsFromClaims, type OidcClaims } from './claims';
import type { OidcPolicy } from './settings';

export type OidcAccountOutcome =
  | {
      ok: true;
      user: OwnUser;
      /** The account was made by this sign-in. */
      created: boolean;
      /** An existing account (matched by verified email) was linked to the provider's subject by this sign-in. */
      linked: boolean;
      /** An admin group made the user an admin at this sign-in. */
      promoted: boolean;
      /** The user, made an admin by an admin group, is in none any more: a user again from this sign-in. */
      demoted: boolean;
    }
  | { ok: false; reason: Extract<SsoError, 'email_not_verified' | 'domain_not_allowed' | 'account_not_found' | 'account_disabled' | 'approval_pending'>; userId?: string };

/**
 * The agentq account for a checked OpenID identity: the one linked to its issuer + subject, else the
 * one with its verified email (linked now), else a new one when OIDC_AUTO_CREATE_USERS allows.
 * Disabled accounts are refused; members of an admin group become admins, and an admin the groups
 * made stops being one at a sign-in outside them (not one made by hand). Errors as values: each
 * refusal has the reason the login page explains.
 */
export async function signInWithOidc(db: Database, policy: OidcPolicy, identity: { issuer: string; claims: OidcClaims }): Promise<OidcAccountOutcome> {
  try {
    return await resolveAccount(db, policy, identity);
  } catch (error) {
    // Two first sign-ins of one person at once: the later insert meets the earlier's row, and a second look finds it.
    if (isUniqueViolation(error)) return resolveAccount(db, policy, identity);
    throw error;
  }
}

async function resolveAccount(db: Database, policy: OidcPolicy, { issuer, claims }: { issuer: string; claims: OidcClaims }): Promise<OidcAccountOutcome> {
  const verifiedEmail = claims.email_verified ? claims.email : undefined;
  if (policy.allowedEmailDomains.length > 0) {
    if (!verifiedEmail) return { ok: false, reason: 'email_not_verified' };
    if (!inEmailDomains(verifiedEmail, policy.allowedEmailDomains)) return { ok: false, reason: 'domain_not_allowed' };
  }
  const admin = policy.adminGroups.length > 0 && groupsFromClaims(claims, policy.groupsClaim).some((group) => policy.adminGroups.includes(group));

  const [linked] = await db
    .select({ user: users })
    .from(userIdentities)
    .innerJoin(users, eq(users.id, userIdentities.userId))
    .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, claims.sub)));
  let row = linked?.user;
  let created = false;
  let linkedNow = false;
  if (!row) {
    // Matching by email trusts the provider's word that the person owns it.
    if (!verifiedEmail) return { ok: false, reason: 'email_not_verified' };
    [row] = await db.select().from(users).where(eq(users.email, verifiedEmail));
    if (row) linkedNow = true;
    else if (!policy.autoCreateUsers) return { ok: false, reason: 'account_not_found' };
    else created = true;
  }
  if (row?.disabledAt) return { ok: false, reason: 'account_disabled', userId: row.id };
  // A sign-up an admin has not approved stays out, however the person signs in.
  if (row?.awaitingApprovalSince) return { ok: false, reason: 'approval_pending', userId: row.id };

  const promoted = admin && row?.role !== 'admin';
  const demoted = !admin && policy.adminGroups.length > 0 && row?.role === 'admin' && row.adminBySsoGroup;
  const user = await db.transaction(async (tx) => {
    let current = row;
    if (!current) {
      [current] = await tx
        .insert(users)
        .values({ id: newId('user'), email: verifiedEmail!, name: displayNameFromClaims(claims), role: admin ? 'admin' : 'user', adminBySsoGroup: admin, passwordHash: NO_PASSWORD_HASH })
        .returning();
      await tx.insert(auditEvents).values({ actorUserId: null, action: 'user.create', targetType: 'user', targetId: current!.id, details: { role: current!.role, method: 'oidc', issuer } });
    } else if (promoted || demoted) {
      [current] = await tx
        .update(users)
        .set({ role: promoted ? 'admin' : 'user', adminBySsoGroup: promoted })
        .where(eq(users.id, current.id))
        .returning();
      await tx.insert(auditEvents).values({
        actorUserId: null,
        action: 'user.update',
        targetType: 'user',
        targetId: current!.id,
        details: { fields: ['role'], role: current!.role, reason: promoted ? 'oidc-admin-group' : 'oidc-admin-group-left' },
      });
    }
    if (linkedNow && current!.emailVerifiedAt === null) {
      // A sign-up that had not confirmed its email yet: the provider has just vouched for it.
      [current] = await tx.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, current!.id)).returning();
    }
    await tx
      .insert(userIdentities)
      .values({ issuer, subject: claims.sub, userId: current!.id, email: claims.email ?? null })
      .onConflictDoUpdate({ target: [userIdentities.issuer, userIdentities.subject], set: { email: claims.email ?? null, lastSignInAt: new Date() } });
    return current!;
  });
  // A new role changes what the user's cached sessions may do: every process drops its copy.
  if ((promoted && !created) || demoted) await invalidateConfig(db, ['auth']);
  return { ok: true, user: toOwnUser(user), created, linked: linkedNow, promoted: promoted && !created, demoted };
}
