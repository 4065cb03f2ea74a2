import type { Run } from '@agentq/shared/services';
import { describe, expect, it } from 'vitest';
import { CreatedRuns } from './created-runs';

const run = (id: string, userId = 'user_owner') => ({ id, userId, status: 'queued' }) as Run;
const owner = { id: 'user_owner', role: 'user' };

describe('CreatedRuns', () => {
  it('hands a run out once, to its owner or an admin, never to another user', () => {
    const runs = new CreatedRuns();
    runs.remember(run('run_a'));
    expect(runs.take('run_a', { id: 'user_other', role: 'user' })).toBeUndefined();
    expect(runs.take('run_a', owner)?.id).toBe('run_a');
    expect(runs.take('run_a', owner)).toBeUndefined();
    runs.remember(run('run_b'));
    expect(runs.take('run_b', { id: 'user_admin', role: 'admin' })?.id).toBe('run_b');
    expect(runs.take('run_unknown', owner)).toBeUndefined();
  });

  it('forgets a run after ten seconds, and the oldest beyond ten thousand', () => {
    const runs = new CreatedRuns();
    runs.remember(run('run_old'), 0);
    runs.remember(run('run_young'), 5_000);
    expect(runs.take('run_old', owner, 10_000)).toBeUndefined();
    expect(runs.take('run_young', owner, 10_000)?.id).toBe('run_young');
    for (let index = 0; index <= 10_000; index++) runs.remember(run(`run_${index}`), 20_000);
    expect(runs.take('run_0', owner, 20_000)).toBeUndefined();
    expect(runs.take('run_1', owner, 20_000)?.id).toBe('run_1');
    expect(runs.take('run_10000', owner, 20_000)?.id).toBe('run_10000');
  });
});
