import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A small OpenID provider on 127.0.0.1 for tests of single sign-on: discovery, `/authorize` (no
 * login page: it answers at once for the person the test chose), `/token` (checks the client secret,
 * the redirect URI and the PKCE verifier; a code works once), `/userinfo` and `/jwks`. ID tokens are
 * RS256, signed with a key generated at start. It redirects only to loopback addresses.
 */

/** Who "signs in" at the provider next, or the error it answers with instead. */
export type FakeLogin = {
  /** ID token claims; `sub` is required. E.g. `{ sub, email, email_verified: true, name, groups: ['admins'] }`. */
  claims?: Record<string, unknown>;
  /** Claims only /userinfo tells (not in the ID token). */
  userinfo?: Record<string, unknown>;
  /** Answer /authorize with `?error=<this>` (e.g. `access_denied`). */
  error?: string;
  /** Spoil the ID token in one way: a check of the client must catch it. */
  tamper?: 'wrong-nonce' | 'foreign-key' | 'expired' | 'wrong-audience' | 'wrong-issuer';
};

export type FakeOidcProvider = {
  /** `http://127.0.0.1:<port>`, as the ID tokens' `iss`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the following visits to /authorize answer (until set again). */
  setLogin: (login: FakeLogin) => void;
  /** Token requests seen, with how the client authenticated and whether PKCE held: for assertions. */
  tokenRequests: { clientAuth: 'basic' | 'post' | 'none'; pkce: boolean; status: number }[];
  close: () => Promise<void>;
};

type IssuedCode = { login: FakeLogin; nonce: string | undefined; codeChallenge: string; redirectUri: string; expiresAt: number };

function isLoopbackRedirect(uri: string): boolean {
  try {
    const { hostname, protocol } = new URL(uri);
    return (protocol === 'http:' || protocol === 'https:') && (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]');
  } catch {
    return false;
  }
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/** The client credentials of a token request: HTTP Basic (form-urlencoded parts, RFC 6749 §2.3.1) or the body. */
function clientCredentials(request: IncomingMessage, form: URLSearchParams): { id?: string; secret?: string; method: 'basic' | 'post' | 'none' } {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id.replace(/\+/g, ' ')), secret: decodeURIComponent(secret.replace(/\+/g, ' ')), method: 'basic' };
  }
  if (form.has('client_secret')) return { id: form.get('client_id') ?? undefined, secret: form.get('client_secret') ?? undefined, method: 'post' };
  return { id: form.get('client_id') ?? undefined, method: 'none' };
}

/** Starts the provider on a free loopback port. */
export async function startFakeOidcProvider(options: { clientId?: string; clientSecret?: string } = {}): Promise<FakeOidcProvider> {
  const clientId = options.clientId ?? 'agentq-test';
  const clientSecret = options.clientSecret ?? `secret-${randomBytes(8).toString('hex')}`;
  const kid = `key-${randomBytes(4).toString('hex')}`;
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  // Signs tokens the provider never published: the client must refuse them.
  const { privateKey: foreignKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };

  let login: FakeLogin = { claims: { sub: 'fake-user', email: 'fake@example.com', email_verified: true, name: 'Fake User' } };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, FakeLogin>();
  const tokenRequests: FakeOidcProvider['tokenRequests'] = [];
  let issuer = '';

  async function idToken(issued: IssuedCode): Promise<string> {
    const { tamper } = issued.login;
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey = tamper === 'foreign-key' ? foreignKey : privateKey;
    return new SignJWT({ ...issued.login.claims, ...(issued.nonce !== undefined && { nonce: tamper === 'wrong-nonce' ? 'not-the-nonce' : issued.nonce }) })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(tamper === 'wrong-issuer' ? 'http://127.0.0.1:1/other' : issuer)
      .setAudience(tamper === 'wrong-audience' ? 'someone-else' : clientId)
      .setIssuedAt(tamper === 'expired' ? now - 7200 : now)
      .setExpirationTime(tamper === 'expired' ? now - 3600 : now + 300)
      .sign(key);
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = await readForm(request);
    const client = clientCredentials(request, form);
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const pkce = code !== undefined && s256(verifier) === code.codeChallenge;
    const answer = (status: number, body: unknown) => {
      tokenRequests.push({ clientAuth: client.method, pkce, status });
      sendJson(response, status, body);
    };
    if (client.id !== clientId || client.secret !== clientSecret) return answer(401, { error: 'invalid_client' });
    if (form.get('grant_type') !== 'authorization_code') return answer(400, { error: 'unsupported_grant_type' });
    if (!code || code.expiresAt < Date.now() || code.redirectUri !== form.get('redirect_uri')) return answer(400, { error: 'invalid_grant' });
    if (!pkce) return answer(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    const accessToken = randomBytes(16).toString('hex');
    accessTokens.set(accessToken, code.login);
    answer(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: await idToken(code), scope: 'openid email profile' });
  }

  function authorize(url: URL, response: ServerResponse): void {
    const params = url.searchParams;
    const redirectUri = params.get('redirect_uri') ?? '';
    if (params.get('client_id') !== clientId || !isLoopbackRedirect(redirectUri)) return sendJson(response, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    const back = new URL(redirectUri);
    const state = params.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const problem =
      params.get('response_type') !== 'code' ? 'unsupported_response_type'
      : !(params.get('scope') ?? '').split(' ').includes('openid') ? 'invalid_scope'
      : params.get('code_challenge_method') !== 'S256' || !params.get('code_challenge') ? 'invalid_request'
      : login.error;
    if (problem) {
      back.searchParams.set('error', problem);
    } else {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { login, nonce: params.get('nonce') ?? undefined, codeChallenge: params.get('code_challenge')!, redirectUri, expiresAt: Date.now() + 60_000 });
      back.searchParams.set('code', code);
    }
    response.writeHead(302, { location: back.href });
    response.end();
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    const route = `${request.method} ${url.pathname}`;
    const handle = async () => {
      switch (route) {
        case 'GET /.well-known/openid-configuration':
          return sendJson(response, 200, {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
            scopes_supported: ['openid', 'email', 'profile', 'groups'],
          });
        case 'GET /jwks':
          return sendJson(response, 200, { keys: [jwk] });
        case 'GET /authorize':
          return authorize(url, response);
        case 'POST /token':
          return token(request, response);
        case 'GET /userinfo': {
          const bearer = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
          const holder = accessTokens.get(bearer);
          if (!holder) return sendJson(response, 401, { error: 'invalid_token' });
          return sendJson(response, 200, { ...holder.claims, ...holder.userinfo });
        }
        default:
          return sendJson(response, 404, { error: 'not_found' });
      }
    };
    handle().catch((error: unknown) => sendJson(response, 500, { error: 'server_error', error_description: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    setLogin: (next) => {
      login = next;
    },
    tokenRequests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
