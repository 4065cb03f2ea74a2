import { describe, expect, it } from 'vitest';
import { parseEnv } from './env';
import { newId } from './ids';

describe('ids', () => {
  it('are prefix_{timestamp36}_{random}, unique and sortable by time', () => {
    const id = newId('run');
    expect(id).toMatch(/^run_[0-9a-z]+_[0-9a-f]{12}$/);
    const timestamp = parseInt(id.split('_')[1]!, 36);
    expect(Math.abs(timestamp - Date.now())).toBeLessThan(5000);
    expect(new Set(Array.from({ length: 1000 }, () => newId('tool'))).size).toBe(1000);
  });
});

describe('env', () => {
  it('applies defaults and parses flags', () => {
    const env = parseEnv({ FETCH_ALLOW_PRIVATE_NETWORKS: '1' });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.FETCH_ALLOW_PRIVATE_NETWORKS).toBe(true);
  });

  it('names every bad variable', () => {
    expect(() => parseEnv({ PORT: 'abc', REDIS_URL: 'not a url' })).toThrow(/PORT[\s\S]*REDIS_URL|REDIS_URL[\s\S]*PORT/);
  });

  it('reads TRUSTED_PROXIES as addresses and CIDR blocks, and refuses anything else', () => {
    expect(parseEnv({}).TRUSTED_PROXIES).toEqual([]);
    expect(parseEnv({ TRUSTED_PROXIES: '10.1.2.3, 10.0.0.0/8,::1,fc00::/7' }).TRUSTED_PROXIES).toEqual(['10.1.2.3', '10.0.0.0/8', '::1', 'fc00::/7']);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => parseEnv({ TRUSTED_PROXIES: bad }), bad).toThrow(/TRUSTED_PROXIES/);
    }
  });

  it('runs on the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
