import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';

import { USER_ROLES } from '../../api-types/users';

export { USER_ROLES, type UserRole } from '../../api-types/users';

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  role: text('role', { enum: USER_ROLES }).notNull().default('user'),
  passwordHash: text('password_hash').notNull(),
  /**
   * The admin role came from an OIDC admin group at a sign-in (services/oidc/accounts.ts), so a
   * sign-in outside the group takes it back; a role an admin sets by hand clears it.
   */
  adminBySsoGroup: boolean('admin_by_sso_group').notNull().default(false),
  /**
   * A sign-up waiting for an admin's approval (SIGNUP=approval, routes/sign-up.ts): set when the
   * person signed up, cleared when an admin approves; until then the account cannot sign in.
   */
  awaitingApprovalSince: timestamp('awaiting_approval_since', { withTimezone: true, mode: 'date' }),
  /**
   * Null only for a self sign-up made while SIGNUP_VERIFY_EMAIL is on, until the person follows the
   * link mailed to it (services/email) or an admin marks it verified; such an account cannot sign in.
   * Every other account counts as verified from its creation (the default; the migration dated
   * existing accounts so too).
   */
  emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }).defaultNow(),
  /** Set by an admin: a disabled user cannot sign in and their sessions and tokens stop working. */
  disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
  /** UI language the user picked ('en', 'zh'); null follows the browser. */
  locale: text('locale'),
  /**
   * What the user wants every chat run of theirs to know about them and how to answer; the API puts
   * it in each run's options, the worker into the system prompt. Null: none. Only its owner reads it.
   */
  customInstructions: text('custom_instructions'),
  /**
   * Two-factor sign-in (services/two-factor.ts): the TOTP secret, AES-GCM under APP_SECRET, set when
   * setup starts; on once `twoFactorEnabledAt` is set. `totpLastStep` is the last time step a code
   * was accepted for (a code works once); `recoveryCodeHashes` the sha256 of each unused recovery code.
   */
  totpSecretEncrypted: text('totp_secret_encrypted'),
  twoFactorEnabledAt: timestamp('two_factor_enabled_at', { withTimezone: true, mode: 'date' }),
  totpLastStep: integer('totp_last_step'),
  recoveryCodeHashes: jsonb('recovery_code_hashes').$type<string[]>(),
  ...timestamps,
});

/** Browser sessions; only a hash of the cookie value is stored. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * The device as its owner sees it under "Where you're signed in" (browser-sessions.ts): the
     * sign-in's User-Agent (cut to 512 characters) and client address; null for sessions older than them.
     */
    userAgent: text('user_agent'),
    clientAddress: text('client_address'),
    /** Roughly when the session was last used: written at most once per few minutes, after a response. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }),
    createdAt,
  },
  (table) => [index('sessions_user_idx').on(table.userId)],
);

/** Bearer tokens for programs; shown once on creation, stored hashed. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    /** First characters of the token, so a user can tell tokens apart without the secret. */
    tokenPrefix: text('token_prefix').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    createdAt,
  },
  (table) => [index('api_tokens_user_idx').on(table.userId)],
);

/** What an emailed link lets its holder do (services/email/email-tokens.ts). */
export const EMAIL_TOKEN_PURPOSES = ['password-reset', 'email-verification'] as const;
export type EmailTokenPurpose = (typeof EMAIL_TOKEN_PURPOSES)[number];

/**
 * Single-use secrets mailed as links: "forgot password" and "verify your email". Only the sha256 of
 * the secret is stored; a newer one of the same purpose deletes the older ones; `usedAt` marks the
 * one use.
 */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: EMAIL_TOKEN_PURPOSES }).notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt,
  },
  (table) => [index('email_tokens_user_idx').on(table.userId, table.purpose)],
);
