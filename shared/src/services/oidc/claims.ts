import { z } from 'zod';

/** A claim that is absent or malformed reads as missing, never as an error: providers differ. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/**
 * The claims of an ID token (merged with userinfo) that sign-in reads. `email_verified` arrives as
 * a boolean from most providers, as the string "true" from a few (Cognito); anything else is false.
 */
export const oidcClaimsSchema = z.looseObject({
  sub: z.string().min(1).max(255),
  email: optional(z.string().trim().toLowerCase().pipe(z.email()).pipe(z.string().max(320))),
  email_verified: z.unknown().optional().transform((value) => value === true || value === 'true'),
  name: optional(z.string().trim().min(1)),
  preferred_username: optional(z.string().trim().min(1)),
});
export type OidcClaims = z.infer<typeof oidcClaimsSchema>;

/**
 * The user's groups from `claim`: an array of strings or one string. A claim name with dots that is
 * not itself present is read as a path (`realm_access.roles` from Keycloak).
 */
export function groupsFromClaims(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = claims[claim];
  if (value === undefined && claim.includes('.')) {
    value = claim.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), claims);
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : [];
}

/** A display name for a new account: the provider's name, else its username, else the email's local part. */
export function displayNameFromClaims(claims: OidcClaims): string {
  const name = claims.name ?? claims.preferred_username ?? claims.email?.split('@')[0] ?? 'User';
  return name.slice(0, 100);
}
