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

  it('runs on the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
