import * as client from 'openid-client';
import { groupsFromClaims, oidcClaimsSchema, type OidcClaims } from './claims';
import type { OidcSettings } from './settings';

/** What must be remembered while the browser is at the provider, to check what comes back. */
export type AuthorizationRequest = { url: URL; state: string; nonce: string; codeVerifier: string };

/** Why a code could not be turned into a checked identity. */
export type CodeRedemptionFailure = {
  ok: false;
  /** `unavailable`: the provider could not be reached; `invalid_token`: it answered, and the answer did not hold up. */
  reason: 'unavailable' | 'invalid_token';
  /** For the log: the library's message and code, never a token, code or secret. */
  detail: string;
};
export type CodeRedemption = { ok: true; issuer: string; claims: OidcClaims } | CodeRedemptionFailure;

/** Discovery is asked again after this long (a provider's endpoints rarely move; its keys are re-read on an unknown `kid`). */
const DISCOVERY_TTL_MS = 60 * 60_000;
const REQUEST_TIMEOUT_SECONDS = 10;

export type OidcProvider = ReturnType<typeof createOidcProvider>;

/**
 * The OpenID provider of OIDC_ISSUER, through openid-client: discovery (lazy, so the API starts while
 * the provider is down), the authorization URL with PKCE (S256), `state` and `nonce`, and the code
 * redemption that checks the ID token's issuer, audience, expiry, nonce and signature (JWKS).
 */
export function createOidcProvider(settings: OidcSettings) {
  let discovered: { configuration: Promise<client.Configuration>; at: number } | undefined;

  function configuration(): Promise<client.Configuration> {
    if (!discovered || Date.now() - discovered.at > DISCOVERY_TTL_MS) {
      const attempt = client.discovery(settings.issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(), {
        timeout: REQUEST_TIMEOUT_SECONDS,
        // The ID token comes straight from the token endpoint, where TLS alone may vouch for it; we
        // check its signature against the provider's keys as well (defence in depth, and the only
        // check over the tests' loopback http).
        execute: [client.enableNonRepudiationChecks, ...(settings.allowInsecureHttp ? [client.allowInsecureRequests] : [])],
      });
      const entry = { configuration: attempt, at: Date.now() };
      discovered = entry;
      // A failed discovery is not kept: the next sign-in asks again.
      attempt.catch(() => {
        if (discovered === entry) discovered = undefined;
      });
    }
    return discovered.configuration;
  }

  return {
    settings,

    /** The provider's authorization URL for a new sign-in, and the secrets to keep until the callback. @throws when discovery fails */
    async authorizationRequest(): Promise<AuthorizationRequest> {
      const config = await configuration();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, state, nonce, codeVerifier };
    },

    /**
     * Redeems the code of `callbackUrl` (the callback as the provider addressed it: PUBLIC_ORIGIN, not
     * the request's Host) and returns the checked claims, with userinfo filling in what the ID token
     * left out (its email, or the groups while admin groups are configured).
     */
    async redeemCode(callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string }): Promise<CodeRedemption> {
      let config: client.Configuration;
      try {
        config = await configuration();
      } catch (error) {
        return { ok: false, reason: 'unavailable', detail: describeError(error) };
      }
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        return { ok: false, reason: isUnreachable(error) ? 'unavailable' : 'invalid_token', detail: describeError(error) };
      }
      const idToken = tokens.claims();
      if (!idToken) return { ok: false, reason: 'invalid_token', detail: 'no ID token in the token response' };
      let claims: Record<string, unknown> = { ...idToken };
      const wantsGroups = settings.policy.adminGroups.length > 0 && groupsFromClaims(idToken, settings.policy.groupsClaim).length === 0;
      if ((idToken.email === undefined || wantsGroups) && config.serverMetadata().userinfo_endpoint) {
        try {
          // The userinfo `sub` must be the ID token's (checked by the library).
          const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
          claims = { ...userinfo, ...idToken };
        } catch {
          // Userinfo only adds to the ID token: without it, sign-in goes on with what the token says.
        }
      }
      const parsed = oidcClaimsSchema.safeParse(claims);
      if (!parsed.success) return { ok: false, reason: 'invalid_token', detail: `unusable claims: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}` };
      return { ok: true, issuer: idToken.iss, claims: parsed.data };
    },
  };
}

/** A network failure or timeout (the provider is down), as opposed to an answer that failed a check. */
function isUnreachable(error: unknown): boolean {
  if (error instanceof client.ClientError) return error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT';
  return error instanceof TypeError;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  // ResponseBodyError: the provider's OAuth error (invalid_grant…), which names no secret.
  const oauthError = error instanceof client.ResponseBodyError ? ` (${error.error})` : '';
  return `${error.message}${typeof code === 'string' ? ` [${code}]` : ''}${oauthError}`;
}
