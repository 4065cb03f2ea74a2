import { ApiError } from '../api.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { issueText } from './issue-text.ts';

/** What a form shows after a failed save: one message per field next to it, and a short summary on top. */
export type FormErrors = {
  /** The line above the form: "Check the highlighted fields" or the error itself when no field is to blame. */
  summary: string | null;
  /** Field name (the issue path joined with '.') → its first message. */
  fields: Record<string, string>;
};

export const NO_ERRORS: FormErrors = { summary: null, fields: {} };

/**
 * Places a failed call's 400 issues next to the fields the form has; issues for other paths stay in
 * the summary, so nothing is lost and nothing is said three times.
 * @example errors = toFormErrors(caught, ['name', 'password'])
 */
export function toFormErrors(caught: unknown, knownFields: readonly string[]): FormErrors {
  if (!(caught instanceof ApiError)) return { summary: caught instanceof Error ? caught.message : t('common.somethingWrong'), fields: {} };
  const fields: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const issue of caught.issues) {
    const key = issue.path.join('.');
    const field = knownFields.find((name) => key === name || key.startsWith(`${name}.`));
    const message = issueText(issue.message);
    if (field) fields[field] ??= message;
    else unplaced.push(key ? `${key}: ${message}` : message);
  }
  const placed = Object.keys(fields).length;
  if (placed === 0) return { summary: unplaced.join(' ') || caught.message, fields };
  const summary = placed === 1 ? t('common.fixField') : t('common.fixFields', { count: placed });
  return { summary: [summary, ...unplaced].join(' '), fields };
}

/**
 * The one-line summary above an editor whose fields show their own issues: "Check the highlighted
 * fields", plus any issue no field of the form shows (so it is said once, not three times).
 */
export function issueSummary(caught: unknown, knownFields: readonly string[], fallback = t('common.somethingWrong')): string {
  if (caught instanceof ApiError && caught.issues.length > 0) return toFormErrors(caught, knownFields).summary ?? fallback;
  return caught instanceof Error && caught.message ? caught.message : fallback;
}
