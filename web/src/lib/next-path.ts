const HOME_PATH = '/chat';

/**
 * The `?next=` target after logging in, limited to paths on this origin so a crafted login
 * link cannot send the user elsewhere (`//evil.test`, `/\evil.test`, `https://…`).
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

/** `/login?next=<current path>`, for sending an unauthenticated visitor to log in and back. */
export function loginPath(current: URL): string {
  const next = current.pathname + current.search;
  return next === '/' || next.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/** Pages the API serves on this origin (the queue board), which the SvelteKit router cannot open. */
const SERVER_PAGES = ['/admin/queues'];

/** Whether `path` needs a full page load rather than a client-side navigation (`goto` rejects it). */
export function isServerPage(path: string): boolean {
  const pathname = path.split(/[?#]/)[0]!;
  return SERVER_PAGES.some((page) => pathname === page || pathname.startsWith(`${page}/`));
}
