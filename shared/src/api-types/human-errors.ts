import { z } from 'zod';

type Issue = z.core.$ZodRawIssue;

/**
 * Validation messages written for people ("Enter at least 8 characters") instead of zod's defaults
 * ("Too small: expected string to have >=8 characters"). A schema's own message still wins.
 * Install once per process with `z.config({ customError: humanError })`.
 */
export function humanError(issue: Issue): string | undefined {
  const { code } = issue;
  if (code === 'invalid_type') {
    if (issue.input === undefined || issue.input === null) return 'Required';
    return `Expected ${article(String(issue.expected))}`;
  }
  if (code === 'too_small') {
    const minimum = Number(issue.minimum);
    if (issue.origin === 'string') return minimum <= 1 ? 'Required' : `Enter at least ${minimum} characters`;
    if (issue.origin === 'array' || issue.origin === 'set') return minimum <= 1 ? 'Add at least one' : `Add at least ${minimum}`;
    return issue.inclusive === false ? `Must be more than ${minimum}` : `Must be ${minimum} or more`;
  }
  if (code === 'too_big') {
    const maximum = Number(issue.maximum);
    if (issue.origin === 'string') return `Use at most ${maximum} characters`;
    if (issue.origin === 'array' || issue.origin === 'set') return `Use at most ${maximum}`;
    return issue.inclusive === false ? `Must be less than ${maximum}` : `Must be ${maximum} or less`;
  }
  if (code === 'invalid_format') {
    if (issue.format === 'email') return 'Enter an email address, e.g. ada@example.com';
    if (issue.format === 'url') return 'Enter a URL, e.g. https://example.com';
    if (issue.format === 'regex') return 'Has characters that are not allowed here';
    return `Enter a valid ${issue.format}`;
  }
  if (code === 'invalid_value') return `Choose one of: ${(issue.values as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  if (code === 'unrecognized_keys') return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
  if (code === 'not_multiple_of') return `Must be a multiple of ${String(issue.divisor)}`;
  if (code === 'invalid_union') return 'Does not match any of the allowed shapes';
  return undefined;
}

function article(type: string): string {
  if (type === 'int') return 'a whole number';
  if (type === 'array') return 'a list';
  if (type === 'object') return 'an object';
  return `a ${type}`;
}
