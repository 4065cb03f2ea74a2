import type { StandardSchemaV1 } from '@standard-schema/spec';
import { validator } from 'hono-openapi';
import type { ValidationTargets } from 'hono';
import { validationFailed } from './errors';

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
      throw validationFailed(issues, `Invalid ${target}: ${issues.map((issue) => `${issue.path.join('.') || target} ${issue.message}`).join('; ')}`);
    }
  });
}
