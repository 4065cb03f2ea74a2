import { redirect } from '@sveltejs/kit';
import { SSO_ERRORS, type SignInProvidersView, type SsoError } from '@agentq/shared/api-types';
import { getSessionUser, getSignInProviders } from '#lib/account/account-api.ts';
import { safeNextPath } from '#lib/next-path.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const next = safeNextPath(url.searchParams.get('next'));
  let signedIn = false;
  let providers: SignInProvidersView = { oidc: null, signUp: null, passwordReset: false, emailVerification: false };
  // Both at once; the API down: show the password form alone.
  const [session, offered] = await Promise.allSettled([getSessionUser(fetch), getSignInProviders(fetch)]);
  if (session.status === 'fulfilled') signedIn = session.value.user !== null;
  if (offered.status === 'fulfilled') providers = offered.value;
  if (signedIn) redirect(307, next);
  // Where a failed single sign-on came back to (the API's redirect names why).
  const ssoCode = url.searchParams.get('sso_error');
  const ssoError: SsoError | 'unknown' | null = ssoCode === null ? null : (SSO_ERRORS as readonly string[]).includes(ssoCode) ? (ssoCode as SsoError) : 'unknown';
  return { next, sso: providers.oidc, signUp: providers.signUp, passwordReset: providers.passwordReset, ssoError };
};
