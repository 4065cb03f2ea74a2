import { describe, expect, it } from 'vitest';
import { ApiError } from '../api.ts';
import { decideApproval, listApprovals } from './approvals-api.ts';

function answering(status: number, body: unknown, seen: { url?: string; init?: RequestInit } = {}): typeof fetch {
  return async (input, init) => {
    seen.url = String(input);
    seen.init = init;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
}

describe('approvals API', () => {
  it('posts the decision as JSON', async () => {
    const seen: { url?: string; init?: RequestInit } = {};
    await decideApproval('approval_1', { decision: 'approve', remember: 'session' }, { fetch: answering(200, { id: 'approval_1' }, seen) });
    expect(seen.url).toBe('/api/approvals/approval_1');
    expect(seen.init?.method).toBe('POST');
    expect(JSON.parse(String(seen.init?.body))).toEqual({ decision: 'approve', remember: 'session' });
  });

  it('keeps the details of a 409 on the ApiError', async () => {
    const conflict = answering(409, { error: { code: 'conflict', message: 'Approval approval_1 was already approved', details: { status: 'approved' } } });
    const error = await decideApproval('approval_1', { decision: 'deny' }, { fetch: conflict }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).details).toEqual({ status: 'approved' });
  });

  it('filters the list by status and run', async () => {
    const seen: { url?: string } = {};
    expect(await listApprovals({ status: 'pending', runId: 'run_1' }, { fetch: answering(200, { items: [], total: 0 }, seen) })).toEqual({ items: [], total: 0 });
    expect(seen.url).toBe('/api/approvals?status=pending&runId=run_1');
  });
});
