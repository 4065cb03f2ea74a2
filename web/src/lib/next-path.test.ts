import { describe, expect, it } from 'vitest';
import { isServerPage, loginPath, safeNextPath } from './next-path.ts';

describe('safeNextPath', () => {
  it('keeps same-origin paths with their query and hash', () => {
    expect(safeNextPath('/documents?tab=memory#top')).toBe('/documents?tab=memory#top');
    expect(safeNextPath('/admin/tools')).toBe('/admin/tools');
  });

  it.each([null, '', 'chat', '//evil.test/x', '/\\evil.test', 'https://evil.test/', 'javascript:alert(1)', '/login?next=/x', '/'])(
    'falls back to /chat for %j',
    (next) => {
      expect(safeNextPath(next)).toBe('/chat');
    },
  );
});

describe('loginPath', () => {
  it('carries the current path and query', () => {
    expect(loginPath(new URL('http://localhost/documents?q=a b'))).toBe('/login?next=%2Fdocuments%3Fq%3Da%2520b');
  });

  it('omits next for the root and for the login page itself', () => {
    expect(loginPath(new URL('http://localhost/'))).toBe('/login');
    expect(loginPath(new URL('http://localhost/login?next=/chat'))).toBe('/login');
  });
});

describe('isServerPage', () => {
  it('tells pages the API serves from app routes', () => {
    expect(isServerPage('/admin/queues')).toBe(true);
    expect(isServerPage('/admin/queues/queue/chat-turns?status=failed')).toBe(true);
    expect(isServerPage('/admin/queuesque')).toBe(false);
    expect(isServerPage('/admin/workers')).toBe(false);
  });
});
