import { ApiError } from '../api.ts';
import { intlLocale, t } from '../i18n/i18n.svelte.ts';

/**
 * What the login form says about a failed sign-in, in the UI language: the API's sign-in
 * refusals by their codes (the wait of a throttled one from its `retryAfterSeconds`), anything
 * else as the API worded it.
 */
export function loginErrorText(error: unknown): string {
  if (!(error instanceof ApiError)) return t('login.failed');
  if (error.code === 'invalid_credentials') return t('login.invalidCredentials');
  if (error.code === 'invalid_two_factor_code') return t('login.invalidCode');
  if (error.code === 'approval_pending') return t('signUp.awaitingApproval');
  if (error.code === 'email_unverified') return t('login.emailUnverified');
  if (error.code === 'invalid_link') return t('email.invalidLink');
  if (error.code === 'rate_limited') return t('forgot.rateLimited');
  if (error.code === 'email_not_configured') return t('forgot.notConfigured');
  if (error.code === 'too_many_attempts') {
    const seconds = Number(error.details.retryAfterSeconds);
    if (!Number.isFinite(seconds) || seconds <= 0) return t('login.tooManyAttemptsLater');
    const when = new Intl.RelativeTimeFormat(intlLocale(), { numeric: 'always' });
    return t('login.tooManyAttempts', { when: seconds < 60 ? when.format(seconds, 'second') : when.format(Math.ceil(seconds / 60), 'minute') });
  }
  return error.message;
}
