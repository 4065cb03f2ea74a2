/** Where a sign-in lands when it names nowhere (or nowhere allowed). */
export const HOME_PATH = '/chat';

/**
 * The `?next=` target after signing in, limited to paths on this origin so a crafted sign-in link
 * cannot send the user elsewhere (`//evil.test`, `/\evil.test`, `https://…`). The login page and the
 * API's single sign-on redirect share this rule.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return HOME_PATH;
  const base = 'http://agentq.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return HOME_PATH;
  }
  if (url.origin !== base || url.pathname === '/login' || url.pathname === '/') return HOME_PATH;
  return url.pathname + url.search + url.hash;
}
