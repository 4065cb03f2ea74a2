/** The part of an address after its last `@`, lowercased. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** Whether an address is at one of `domains` (lowercase, without `@`); an empty list takes any. */
export const inEmailDomains = (email: string, domains: readonly string[]): boolean => domains.length === 0 || domains.includes(emailDomain(email));
