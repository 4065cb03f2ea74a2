import type { Env } from '../../env';

/** Where the provider sends the browser back to; registered at the provider as PUBLIC_ORIGIN + this. */
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/** Single sign-on as configured by the OIDC_* variables (env.ts checked them together at start). */
export type OidcSettings = {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's "Sign in with <displayName>". */
  displayName: string;
  scopes: string[];
  /** The absolute callback URL, from PUBLIC_ORIGIN. */
  redirectUri: string;
  /** Plain http to the issuer: only ever true for a loopback issuer (env.ts refuses it otherwise). */
  allowInsecureHttp: boolean;
  policy: OidcPolicy;
};

/** Who may sign in with SSO and what they get: the part of the settings the account rules read. */
export type OidcPolicy = {
  autoCreateUsers: boolean;
  /** Lowercase domains; empty = any. */
  allowedEmailDomains: string[];
  adminGroups: string[];
  groupsClaim: string;
};

/** The settings when OIDC_ISSUER is set, else undefined (SSO off). */
export function oidcSettingsFromEnv(env: Env): OidcSettings | undefined {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET || !env.PUBLIC_ORIGIN) return undefined;
  return {
    issuer: new URL(env.OIDC_ISSUER),
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    displayName: env.OIDC_DISPLAY_NAME,
    scopes: env.OIDC_SCOPES,
    redirectUri: new URL(OIDC_CALLBACK_PATH, env.PUBLIC_ORIGIN).href,
    allowInsecureHttp: env.OIDC_ALLOW_INSECURE_HTTP,
    policy: {
      autoCreateUsers: env.OIDC_AUTO_CREATE_USERS,
      allowedEmailDomains: env.OIDC_ALLOWED_EMAIL_DOMAINS,
      adminGroups: env.OIDC_ADMIN_GROUPS,
      groupsClaim: env.OIDC_GROUPS_CLAIM,
    },
  };
}
