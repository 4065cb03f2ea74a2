/**
 * The signed-in user's own account: profile, password, two-factor sign-in, API tokens. Types and request schemas come
 * from @agentq/shared/api-types, the ones the API validates with.
 */
import type { ApiTokenView, ChangePasswordInput, CreateApiTokenInput, CreatedApiToken, OwnUserView, SignInProvidersView, SignUpInput, UpdateProfileInput } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';

type Fetch = typeof fetch;

/** The signed-in user, with what only they see (their custom instructions). */
export function getMe(fetchImpl?: Fetch): Promise<{ user: OwnUserView }> {
  return apiFetch('/api/auth/me', { fetch: fetchImpl });
}

/** Who is signed in, or null: a 200 either way, so the sign-in page asks without an error in the console. */
export function getSessionUser(fetchImpl?: Fetch): Promise<{ user: OwnUserView | null }> {
  return apiFetch('/api/auth/session', { fetch: fetchImpl });
}

/** The ways to sign in besides a password (single sign-on when configured); anyone may ask. */
export function getSignInProviders(fetchImpl?: Fetch): Promise<SignInProvidersView> {
  return apiFetch('/api/auth/providers', { fetch: fetchImpl });
}

export function updateProfile(input: UpdateProfileInput): Promise<{ user: OwnUserView }> {
  return apiFetch('/api/auth/me', { method: 'PATCH', json: input });
}

export function changePassword(input: ChangePasswordInput): Promise<void> {
  return apiFetch('/api/auth/password', { method: 'POST', json: input });
}

export function listTokens(fetchImpl?: Fetch): Promise<{ items: ApiTokenView[] }> {
  return apiFetch('/api/auth/tokens', { fetch: fetchImpl });
}

export function createToken(input: CreateApiTokenInput): Promise<CreatedApiToken> {
  return apiFetch('/api/auth/tokens', { method: 'POST', json: input });
}

export function revokeToken(id: string): Promise<void> {
  return apiFetch(`/api/auth/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/**
 * Signs in with a session cookie. @throws {ApiError} 401 for a wrong email or password
 * (`invalid_credentials`), for a missing or wrong two-factor code (`two_factor_required`,
 * `invalid_two_factor_code`), 429 when throttled.
 */
export function login(input: { email: string; password: string; code?: string }): Promise<{ user: OwnUserView }> {
  return apiFetch('/api/auth/login', { method: 'POST', json: input });
}

/** Makes the person's own account (when the server takes sign-ups): signed in at once, or waiting for an admin's approval or for the person to confirm their email. */
export function signUp(input: SignUpInput): Promise<{ user: OwnUserView; awaitingApproval: boolean; awaitingEmailVerification: boolean }> {
  return apiFetch('/api/auth/sign-up', { method: 'POST', json: input });
}

/** "Forgot password?": the API answers the same whether or not the address has an account. @throws {ApiError} 429 when asked too often. */
export function requestPasswordReset(email: string): Promise<void> {
  return apiFetch('/api/auth/password-reset/request', { method: 'POST', json: { email } });
}

/** Sets a new password with the secret from the emailed link. @throws {ApiError} 400 `invalid_link`, or with issues for a weak password. */
export function resetPassword(token: string, password: string): Promise<void> {
  return apiFetch('/api/auth/password-reset', { method: 'POST', json: { token, password } });
}

/** Emails a sign-up's confirmation link again (the same answer for any address). */
export function resendEmailVerification(email: string): Promise<void> {
  return apiFetch('/api/auth/email-verification/resend', { method: 'POST', json: { email } });
}

/** Confirms the email with the secret from the emailed link. @throws {ApiError} 400 `invalid_link`. */
export function verifyEmail(token: string): Promise<void> {
  return apiFetch('/api/auth/email-verification', { method: 'POST', json: { token } });
}

/** The secret of an emailed link: it rides in the fragment (`#token=…`), which never reaches a server log. */
export function tokenFromHash(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token');
}

/** Two-factor sign-in (an authenticator app's codes) of the signed-in user. */
export function getTwoFactor(fetchImpl?: Fetch): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
  return apiFetch('/api/auth/two-factor', { fetch: fetchImpl });
}

/** A new secret to scan (not in force until `enableTwoFactor`). */
export function beginTwoFactorSetup(password: string): Promise<{ secret: string; uri: string }> {
  return apiFetch('/api/auth/two-factor/setup', { method: 'POST', json: { password } });
}

export function enableTwoFactor(code: string): Promise<{ recoveryCodes: string[] }> {
  return apiFetch('/api/auth/two-factor/enable', { method: 'POST', json: { code } });
}

export function regenerateRecoveryCodes(code: string): Promise<{ recoveryCodes: string[] }> {
  return apiFetch('/api/auth/two-factor/recovery-codes', { method: 'POST', json: { code } });
}

export function disableTwoFactor(input: { password: string; code: string }): Promise<void> {
  return apiFetch('/api/auth/two-factor/disable', { method: 'POST', json: input });
}

export async function logout(): Promise<void> {
  await apiFetch('/api/auth/logout', { method: 'POST' });
}
