import { normalizeHostname } from './assert-safe-url';

export type DomainLists = { allowedDomains: readonly string[]; blockedDomains: readonly string[] };

/**
 * Whether a domain pattern matches a hostname: `*` matches everything, `*.example.com` matches
 * any subdomain of example.com (not example.com itself), anything else matches exactly.
 * Case and a trailing root dot are ignored on both sides.
 */
export function matchesDomainPattern(hostname: string, pattern: string): boolean {
  const host = normalizeHostname(hostname);
  const normalizedPattern = normalizeHostname(pattern.trim());
  if (normalizedPattern === '*') return true;
  if (normalizedPattern.startsWith('*.')) {
    const suffix = normalizedPattern.slice(1);
    return host.length > suffix.length && host.endsWith(suffix);
  }
  return host === normalizedPattern;
}

/**
 * Applies the tool's domain lists to a hostname and returns why it is refused, or null when it
 * may be fetched. The block list wins over the allow list; an empty allow list allows all.
 */
export function checkDomainAccess(hostname: string, lists: DomainLists): string | null {
  const blockedBy = lists.blockedDomains.find((pattern) => matchesDomainPattern(hostname, pattern));
  if (blockedBy !== undefined) return `${normalizeHostname(hostname)} matches blocked domain "${blockedBy}"`;
  if (lists.allowedDomains.length === 0) return null;
  if (lists.allowedDomains.some((pattern) => matchesDomainPattern(hostname, pattern))) return null;
  return `${normalizeHostname(hostname)} is not in the allowed domains (${lists.allowedDomains.join(', ')})`;
}
