import { runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createApproval } from '@agentq/shared/services';
import { startPrivateRedis, type PrivateRedis } from '@agentq/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

// A Redis of this file's own: the outage test stops it.
let server: PrivateRedis;
let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  server = await startPrivateRedis({ appendonly: true });
  t = await createTestApp({ redisUrl: server.url });
  owner = await t.signUp();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await server?.dispose();
});

async function parkedRun(expiresInMs: number) {
  const runId = newId('run');
  await t.db.insert(runs).values({ id: runId, kind: 'chat', userId: owner.user.id, status: 'awaiting_approval' });
  const approval = await createApproval(t.db, {
    runId,
    userId: owner.user.id,
    toolCallId: `call-${runId}`,
    toolId: null,
    toolName: 'gate',
    input: { url: 'http://127.0.0.1:9/x' },
    expiresAt: new Date(Date.now() + expiresInMs),
  });
  return { runId, approvalId: approval.id };
}

const decide = (approvalId: string, body: unknown) =>
  t.app.request(`/api/approvals/${approvalId}`, { method: 'POST', headers: owner.headers, body: JSON.stringify(body) });

describe('approvals without workers and without Redis', () => {
  it('an approval past its time reads as expired in the list, the item and the badge, with no worker running', async () => {
    const { runId, approvalId } = await parkedRun(-1000);
    const list = await (await t.app.request(`/api/approvals?runId=${runId}`, { headers: owner.headers })).json();
    expect(list.items.map((item: { status: string }) => item.status)).toEqual(['expired']);
    expect((await (await t.app.request(`/api/approvals/${approvalId}`, { headers: owner.headers })).json()).status).toBe('expired');
    const pending = await (await t.app.request('/api/approvals?status=pending', { headers: owner.headers })).json();
    expect(pending.items.some((item: { id: string }) => item.id === approvalId)).toBe(false);
    expect((await (await t.app.request('/api/approvals/count', { headers: owner.headers })).json()).pending).toBe(0);
    const late = await decide(approvalId, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect((await late.json()).error.details.status).toBe('expired');
  });

  it('a decision while Redis is down is stored and answered 200; repeating it answers the stored state, a contrary one 409', async () => {
    const { approvalId } = await parkedRun(60_000);
    await server.stop('SIGTERM');
    try {
      const first = await decide(approvalId, { decision: 'approve' });
      expect(first.status).toBe(200);
      const stored = await first.json();
      expect(stored).toMatchObject({ id: approvalId, status: 'approved', decidedBy: owner.user.id });
      const retry = await decide(approvalId, { decision: 'approve' });
      expect(retry.status).toBe(200);
      expect((await retry.json()).decidedAt).toBe(stored.decidedAt);
      expect((await decide(approvalId, { decision: 'deny' })).status).toBe(409);
    } finally {
      await server.start();
    }
  });

  it('a cancel while Redis is down is stored and answered 202; cancelling again answers 202 with the stored state', async () => {
    const { runId } = await parkedRun(60_000);
    await server.stop('SIGTERM');
    try {
      const cancel = () => t.app.request(`/api/runs/${runId}/cancel`, { method: 'POST', headers: owner.headers });
      const first = await cancel();
      expect(first.status).toBe(202);
      const stored = await first.json();
      expect(stored.status).toBe('cancelled');
      const again = await cancel();
      expect(again.status).toBe(202);
      expect((await again.json()).finishedAt).toBe(stored.finishedAt);
    } finally {
      await server.start();
    }
  });
});
