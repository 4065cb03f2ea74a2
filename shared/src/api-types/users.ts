import { z } from 'zod';

/**
 * Users, profiles and API tokens on the wire: the request schemas the API validates with and the
 * response shapes it sends (dates as ISO strings). zod only, so the web app may import it.
 */

export const USER_ROLES = ['admin', 'user'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const SUPPORTED_LOCALES = ['en', 'zh'] as const;

const password = z.string().min(8, 'Password must be at least 8 characters').max(200, 'Use at most 200 characters');
const name = z.string().trim().min(1, 'Enter a name').max(100, 'Use at most 100 characters');

/** POST /api/users (admins). */
export const createUserInputSchema = z.object({
  email: z.string().trim().toLowerCase().email('Enter an email address, e.g. ada@example.com'),
  name,
  password,
  role: z.enum(USER_ROLES).default('user'),
});
export type CreateUserInput = z.infer<typeof createUserInputSchema>;

/** POST /api/auth/sign-up (when SIGNUP allows it): a person makes their own account, role user. */
export const signUpInputSchema = createUserInputSchema.omit({ role: true });
export type SignUpInput = z.infer<typeof signUpInputSchema>;

/** PATCH /api/users/:id (admins): name, role, a new password, disabling the account, approving a sign-up or marking its email verified. */
// Spelled out, not createUserInputSchema.partial(): zod keeps `role`'s default inside .partial(), so
// every other change (a password reset, disabling) would also make an admin a user.
export const updateUserInputSchema = z.object({
  name: name.optional(),
  password: password.optional(),
  role: z.enum(USER_ROLES).optional(),
  disabled: z.boolean().optional(),
  approved: z.literal(true, 'Send approved: true to approve a sign-up').optional(),
  /** Marks a sign-up's email verified by hand (it can sign in without following the emailed link). */
  emailVerified: z.literal(true, 'Send emailVerified: true to mark the email verified').optional(),
});
export type UpdateUserInput = z.infer<typeof updateUserInputSchema>;

/** The longest custom instructions a user may keep: they go into every run's system prompt. */
export const CUSTOM_INSTRUCTIONS_MAX_CHARS = 4_000;

/** A user's standing instructions to every chat; empty (or only spaces) clears them, as null does. */
const customInstructions = z
  .string()
  .trim()
  .max(CUSTOM_INSTRUCTIONS_MAX_CHARS, 'Use at most 4,000 characters')
  .nullable()
  .transform((text) => text || null);

/** PATCH /api/auth/me: what a signed-in user may change about themselves. */
export const updateProfileInputSchema = z
  .object({
    name: z.string().trim().min(1, 'Enter your name').max(100, 'Use at most 100 characters'),
    locale: z.enum(SUPPORTED_LOCALES).nullable(),
    customInstructions,
  })
  .partial();
export type UpdateProfileInput = z.infer<typeof updateProfileInputSchema>;

/** POST /api/auth/password. */
export const changePasswordInputSchema = z.object({
  currentPassword: z.string().min(1, 'Enter your current password').max(200),
  newPassword: password,
});
export type ChangePasswordInput = z.infer<typeof changePasswordInputSchema>;

/** POST /api/auth/tokens. */
export const createApiTokenInputSchema = z.object({
  name,
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type CreateApiTokenInput = z.infer<typeof createApiTokenInputSchema>;

/** A user as every route returns it (never the password hash). */
export type UserView = {
  id: string;
  email: string;
  name: string;
  role: UserRole;
  /** When an admin disabled the account; null while active. */
  disabledAt: string | null;
  /** The UI language the user chose; null follows the browser. */
  locale: string | null;
  /** Signing in takes a code from an authenticator app too. */
  twoFactor: boolean;
  /** Signed up and waiting for an admin's approval: cannot sign in until approved. */
  awaitingApproval: boolean;
  /** False for a sign-up that has not followed the link mailed to it yet: cannot sign in until it does (or an admin marks it verified). */
  emailVerified: boolean;
  createdAt: string;
};

/** POST /api/auth/password-reset/request and /api/auth/email-verification/resend: an address to write to. */
export const emailRequestInputSchema = z.object({
  email: z.string().trim().toLowerCase().email('Enter an email address, e.g. ada@example.com').max(320),
});
export type EmailRequestInput = z.infer<typeof emailRequestInputSchema>;

/** POST /api/auth/password-reset: the secret from the emailed link and the new password (the same rules as everywhere). */
export const passwordResetInputSchema = z.object({
  token: z.string().min(20).max(200),
  password,
});
export type PasswordResetInput = z.infer<typeof passwordResetInputSchema>;

/** POST /api/auth/email-verification: the secret from the emailed link. */
export const emailVerificationInputSchema = z.object({ token: z.string().min(20).max(200) });

/** A user in Admin → Users' list (GET /api/users): also the groups they are in, by name. */
export type ListedUserView = UserView & { groups: { id: string; name: string }[] };

/** The signed-in user as they see themselves (GET/PATCH /api/auth/me): what no one else is shown. */
export type OwnUserView = UserView & {
  /** Their standing instructions to every chat run; null for none. */
  customInstructions: string | null;
  /** False for an account made by single sign-on (no password to change or to confirm two-factor setup with). */
  hasPassword: boolean;
};

/** An API token as listed (no secret). */
export type ApiTokenView = { id: string; name: string; tokenPrefix: string; lastUsedAt: string | null; expiresAt: string | null; createdAt: string };

/** POST /api/auth/tokens answer: the only time the secret is sent. */
export type CreatedApiToken = ApiTokenView & { token: string };
