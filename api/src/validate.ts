import type { StandardSchemaV1 } from '@standard-schema/spec';
import { validator } from 'hono-openapi';
import type { ValidationTargets } from 'hono';
import { humanError } from '@agentq/shared/api-types';
import { z } from 'zod';
import { validationFailed } from './errors';

// Every 400 speaks to people ("Enter at least 8 characters"), not in zod's wording; schemas' own messages win.
z.config({ customError: humanError });

/** One line for the whole failure: the field and its message, or how many fields need attention. */
export function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  const named = issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message));
  if (named.length === 1) return named[0]!;
  return `${named.length} fields need attention: ${named.join('; ')}`;
}

/**
 * Validates a request part with a zod schema and documents it in the OpenAPI spec;
 * failures go through the error funnel as 400 with the issues.
 */
export function validate<Schema extends StandardSchemaV1, Target extends keyof ValidationTargets>(target: Target, schema: Schema) {
  return validator(target, schema, (result) => {
    if (!result.success) {
      const issues = (result.error as readonly StandardSchemaV1.Issue[]).map((issue) => ({
        path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
        message: issue.message,
      }));
      throw validationFailed(issues, describeIssues(issues));
    }
  });
}
