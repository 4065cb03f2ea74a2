// One rule for the login page and the API's single sign-on redirect (shared/src/api-types/next-path.ts).
export { safeNextPath } from '@agentq/shared/api-types';

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
