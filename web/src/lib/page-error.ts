import { error, redirect } from '@sveltejs/kit';
import { ApiError } from './api.ts';
import { t } from './i18n/i18n.svelte.ts';
import { loginPath } from './next-path.ts';

/**
 * Turns a failed API call inside a `load` into what the page should show: the login page when
 * the session expired meanwhile, else the error page with the API's status and message.
 * @example try { … } catch (caught) { throwPageError(caught, url) }
 */
export function throwPageError(caught: unknown, url: URL): never {
  if (!(caught instanceof ApiError)) throw caught;
  if (caught.status === 401) redirect(307, loginPath(url));
  error(caught.status || 503, caught.message);
}

/** The message to show for a failed call made from a click (not a `load`). */
export function errorMessage(caught: unknown, fallback = t('common.somethingWrong')): string {
  return caught instanceof ApiError || caught instanceof Error ? caught.message || fallback : fallback;
}
