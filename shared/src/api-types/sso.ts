/**
 * Why a single sign-on attempt ended on the login page (`/login?sso_error=<code>`): the web shows a
 * message for each, the audit log records it as the failure's `reason`.
 */
export const SSO_ERRORS = [
  /** The provider answered with an error (the person cancelled, or it refused them). */
  'provider_error',
  /** The answer did not match a sign-in this browser started: expired, used already, or from another browser. */
  'state_mismatch',
  /** The provider's tokens did not hold up (signature, issuer, audience, expiry, nonce, PKCE). */
  'invalid_token',
  /** The provider could not be reached. */
  'unavailable',
  /** No email the provider vouches for (`email_verified`), and one was needed. */
  'email_not_verified',
  /** The email's domain is not in OIDC_ALLOWED_EMAIL_DOMAINS. */
  'domain_not_allowed',
  /** Nobody has that email here and OIDC_AUTO_CREATE_USERS is off. */
  'account_not_found',
  /** The account is disabled. */
  'account_disabled',
  /** The account was signed up and an admin has not approved it yet. */
  'approval_pending',
  /** Single sign-on is not configured on this server. */
  'not_configured',
] as const;
export type SsoError = (typeof SSO_ERRORS)[number];

/** GET /api/auth/providers: the ways to sign in besides a password, for the login page. */
export type SignInProvidersView = {
  /** Single sign-on with OpenID Connect, when configured: the button's name and where it starts. */
  oidc: { displayName: string; startPath: string } | null;
  /** Whether people may make their own account (SIGNUP): at once, after an admin's approval, or not (null). */
  signUp: 'open' | 'approval' | null;
  /** The server sends email (SMTP): the sign-in page offers "Forgot password?". */
  passwordReset: boolean;
  /** New accounts confirm their email before signing in (SIGNUP_VERIFY_EMAIL). */
  emailVerification: boolean;
};
