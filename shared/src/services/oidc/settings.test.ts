import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../env';
import { displayNameFromClaims, groupsFromClaims, oidcClaimsSchema } from './claims';
import { oidcSettingsFromEnv } from './settings';

const configured = {
  OIDC_ISSUER: 'https://id.example.com/realms/acme',
  OIDC_CLIENT_ID: 'agentq',
  OIDC_CLIENT_SECRET: 'a-client-secret',
  PUBLIC_ORIGIN: 'https://agentq.example.com',
};

/** The one message parseEnv gives for `env` (it throws a line per bad variable). */
function problem(env: Record<string, string>): string {
  try {
    parseEnv(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the environment to be refused');
}

describe('OIDC settings from the environment', () => {
  it('are off without OIDC_ISSUER, and on with the defaults the docs name', () => {
    expect(oidcSettingsFromEnv(parseEnv({}))).toBeUndefined();
    const settings = oidcSettingsFromEnv(parseEnv(configured))!;
    expect(settings).toMatchObject({
      clientId: 'agentq',
      displayName: 'Single sign-on',
      scopes: ['openid', 'email', 'profile'],
      redirectUri: 'https://agentq.example.com/api/auth/oidc/callback',
      allowInsecureHttp: false,
      policy: { autoCreateUsers: true, allowedEmailDomains: [], adminGroups: [], groupsClaim: 'groups' },
    });
    expect(settings.issuer.href).toBe('https://id.example.com/realms/acme');
  });

  it('reads the lists and flags', () => {
    const settings = oidcSettingsFromEnv(
      parseEnv({
        ...configured,
        OIDC_SCOPES: 'openid,email groups',
        OIDC_AUTO_CREATE_USERS: '0',
        OIDC_ALLOWED_EMAIL_DOMAINS: 'Example.com, @example.org',
        OIDC_ADMIN_GROUPS: 'agentq-admins, ops',
        OIDC_GROUPS_CLAIM: 'realm_access.roles',
        OIDC_DISPLAY_NAME: 'Acme ID',
      }),
    )!;
    expect(settings.scopes).toEqual(['openid', 'email', 'groups']);
    expect(settings.displayName).toBe('Acme ID');
    expect(settings.policy).toEqual({ autoCreateUsers: false, allowedEmailDomains: ['example.com', 'example.org'], adminGroups: ['agentq-admins', 'ops'], groupsClaim: 'realm_access.roles' });
  });

  it('refuses an incomplete or unsafe configuration, naming the variable and the fix', () => {
    expect(problem({ ...configured, OIDC_CLIENT_ID: '' })).toMatch(/OIDC_CLIENT_ID: OIDC_CLIENT_ID is required with OIDC_ISSUER/);
    expect(problem({ ...configured, OIDC_CLIENT_SECRET: '' })).toMatch(/OIDC_CLIENT_SECRET is required/);
    expect(problem({ ...configured, PUBLIC_ORIGIN: '' })).toMatch(/PUBLIC_ORIGIN is required with OIDC_ISSUER/);
    expect(problem({ OIDC_CLIENT_ID: 'agentq' })).toMatch(/OIDC_CLIENT_ID is set but OIDC_ISSUER is not/);
    expect(problem({ ...configured, OIDC_ISSUER: 'not a url' })).toMatch(/OIDC_ISSUER/);
    expect(problem({ ...configured, OIDC_ISSUER: 'http://id.example.com' })).toMatch(/OIDC_ISSUER must be an https:\/\/ URL/);
    expect(problem({ ...configured, OIDC_SCOPES: 'email profile' })).toMatch(/OIDC_SCOPES must include openid/);
    expect(problem({ ...configured, OIDC_ALLOWED_EMAIL_DOMAINS: 'example' })).toMatch(/OIDC_ALLOWED_EMAIL_DOMAINS must list domains/);
    expect(problem({ ...configured, OIDC_ISSUER: 'https://id.example.com/?tenant=x' })).toMatch(/without \?query/);
  });

  it('allows plain http only to a loopback issuer, and only with OIDC_ALLOW_INSECURE_HTTP', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000', 'http://[::1]:4000']) {
      expect(oidcSettingsFromEnv(parseEnv({ ...configured, OIDC_ISSUER: issuer, OIDC_ALLOW_INSECURE_HTTP: '1' }))?.allowInsecureHttp).toBe(true);
      expect(problem({ ...configured, OIDC_ISSUER: issuer })).toMatch(/must be an https:\/\/ URL/);
    }
    for (const issuer of ['http://10.0.0.5', 'http://id.example.com', 'https://127.0.0.1:4000', 'http://127.0.0.1.nip.io']) {
      expect(problem({ ...configured, OIDC_ISSUER: issuer, OIDC_ALLOW_INSECURE_HTTP: '1' })).toMatch(/OIDC_ALLOW_INSECURE_HTTP is for tests/);
    }
  });
});

describe('OIDC claims', () => {
  it('reads email_verified as true only for true or "true", and a malformed email as none', () => {
    const read = (claims: Record<string, unknown>) => oidcClaimsSchema.parse({ sub: 's', ...claims });
    expect(read({ email: ' Ada@Example.COM ', email_verified: true })).toMatchObject({ email: 'ada@example.com', email_verified: true });
    expect(read({ email_verified: 'true' }).email_verified).toBe(true);
    for (const value of [false, 'false', 1, 'yes', undefined, null]) expect(read({ email_verified: value }).email_verified).toBe(false);
    expect(read({ email: 'not an email' }).email).toBeUndefined();
    expect(oidcClaimsSchema.safeParse({ email: 'a@b.c' }).success).toBe(false);
  });

  it('finds groups as an array, a single string or a dotted path', () => {
    expect(groupsFromClaims({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsFromClaims({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(groupsFromClaims({ realm_access: { roles: ['admin'] } }, 'realm_access.roles')).toEqual(['admin']);
    expect(groupsFromClaims({ 'https://acme.test/groups': ['x'] }, 'https://acme.test/groups')).toEqual(['x']);
    expect(groupsFromClaims({}, 'groups')).toEqual([]);
  });

  it('names a new account from name, username or the email', () => {
    expect(displayNameFromClaims(oidcClaimsSchema.parse({ sub: 's', name: 'Ada', preferred_username: 'ada' }))).toBe('Ada');
    expect(displayNameFromClaims(oidcClaimsSchema.parse({ sub: 's', preferred_username: 'ada' }))).toBe('ada');
    expect(displayNameFromClaims(oidcClaimsSchema.parse({ sub: 's', email: 'ada.l@example.com' }))).toBe('ada.l');
  });
});
