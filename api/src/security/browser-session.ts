import { createSession, SESSION_TTL_MS } from '@agentq/shared/services';
import type { Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { AppEnv } from '../deps';
import { SESSION_COOKIE } from '../middleware/auth';
import { clientAddress } from './client-address';

/**
 * Signs the browser in as `userId`: a session noting its device (User-Agent, client address) and
 * the HttpOnly cookie that carries it. Every way in (password, single sign-on) ends here.
 */
export async function startBrowserSession(c: Context<AppEnv>, userId: string): Promise<void> {
  const address = clientAddress(c);
  const session = await createSession(c.get('db'), userId, SESSION_TTL_MS, { userAgent: c.req.header('user-agent'), clientAddress: address === 'unknown' ? null : address });
  setCookie(c, SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: c.get('config').secureCookies,
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}
