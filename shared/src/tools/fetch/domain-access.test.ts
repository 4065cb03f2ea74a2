import { describe, expect, it } from 'vitest';
import { checkDomainAccess, matchesDomainPattern } from './domain-access';

describe('matchesDomainPattern', () => {
  it.each([
    ['example.com', '*', true],
    ['example.com', 'example.com', true],
    ['EXAMPLE.com.', 'example.COM', true],
    ['www.example.com', 'example.com', false],
    ['www.example.com', '*.example.com', true],
    ['a.b.example.com', '*.example.com', true],
    ['example.com', '*.example.com', false],
    ['badexample.com', '*.example.com', false],
    ['example.com.evil.net', '*.example.com', false],
    ['127.0.0.1', '127.0.0.1', true],
    ['::1', '[::1]', true],
  ])('%s against %s → %s', (hostname, pattern, expected) => {
    expect(matchesDomainPattern(hostname, pattern)).toBe(expected);
  });
});

describe('checkDomainAccess', () => {
  it('allows everything with an empty or "*" allow list', () => {
    expect(checkDomainAccess('a.test', { allowedDomains: [], blockedDomains: [] })).toBeNull();
    expect(checkDomainAccess('a.test', { allowedDomains: ['*'], blockedDomains: [] })).toBeNull();
  });

  it('lets the block list win over the allow list', () => {
    const lists = { allowedDomains: ['*.example.com'], blockedDomains: ['admin.example.com'] };
    expect(checkDomainAccess('docs.example.com', lists)).toBeNull();
    expect(checkDomainAccess('admin.example.com', lists)).toMatch(/blocked domain "admin.example.com"/);
    expect(checkDomainAccess('other.com', lists)).toMatch(/not in the allowed domains/);
  });
});
