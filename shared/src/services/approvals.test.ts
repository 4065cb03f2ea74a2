import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { agentTools, approvalGrants, approvals, auditEvents, llmModels, runs, users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { approvalQuerySchema, createApproval, decideApproval, getApprovalFor, listApprovals } from './approvals';
import { createChatSession, deleteChatSession, startChatRun } from './chat';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';

// A decision is one statement: the approval, its audit line and its session grant (POST /api/approvals/:id).
describe.each(bothTestDatabases)('approval decisions on %s', (_name, open) => {
  let database: DbHandle;
  const owner = { id: newId('user'), role: 'user' };
  const stranger = { id: newId('user'), role: 'user' };
  const admin = { id: newId('user'), role: 'admin' };
  let toolId: string;

  beforeAll(async () => {
    database = await open();
    for (const user of [owner, stranger, admin]) {
      await database.db.insert(users).values({ id: user.id, email: `${user.id}@test.local`, name: 'approvals', passwordHash: 'x', role: user.role as 'user' | 'admin' });
    }
    const [model] = await database.db.select().from(llmModels).limit(1);
    if (!model) await database.db.insert(llmModels).values({ id: newId('model'), name: 'approvals test', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });
    toolId = newId('tool');
    await database.db.insert(agentTools).values({ id: toolId, name: 'Calc', slug: `calc-${toolId.slice(-8)}`, type: 'calculator', needsApproval: true });
  }, 240_000);
  afterAll(() => database.close());

  async function pendingApproval(options: { expiresInMs?: number } = {}) {
    const session = await createChatSession(database.db, owner.id, {});
    const { run } = await startChatRun(database.db, { userId: owner.id, session, input: { content: 'compute', enableTools: true, enableThinking: false } });
    const approval = await createApproval(database.db, {
      runId: run.id,
      userId: owner.id,
      toolCallId: `call_${newId('toolLog')}`,
      toolId,
      toolName: 'calc',
      input: { expression: '6 * 7' },
      expiresAt: new Date(Date.now() + (options.expiresInMs ?? 60_000)),
    });
    return { approval, run, session };
  }
  const auditOf = (approvalId: string) => database.db.select().from(auditEvents).where(and(eq(auditEvents.targetType, 'approval'), eq(auditEvents.targetId, approvalId)));
  const grantsOf = (sessionId: string) => database.db.select().from(approvalGrants).where(eq(approvalGrants.sessionId, sessionId));

  it('approves for the session: the row, its audit line, the grant, and the run to wake', async () => {
    const { approval, run, session } = await pendingApproval();
    const decided = await decideApproval(database.db, approval.id, owner, { decision: 'approve', remember: 'session' });
    expect(decided.approval).toMatchObject({ id: approval.id, status: 'approved', remember: true, decidedBy: owner.id, editedInput: null, reason: null });
    expect(decided.approval.decidedAt).toBeInstanceOf(Date);
    expect(decided.approval.expiresAt).toEqual(approval.expiresAt);
    expect(decided.run).toEqual({ id: run.id, kind: 'chat', queueJobId: run.queueJobId });
    expect(await getApprovalFor(database.db, approval.id, owner)).toEqual(decided.approval);
    const audit = await auditOf(approval.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorUserId: owner.id, action: 'approval.approved', details: { runId: run.id, toolName: 'calc', reason: null, edited: false, remember: true } });
    expect((await grantsOf(session.id)).map((grant) => [grant.toolName, grant.grantedBy])).toEqual([['calc', owner.id]]);
    // Not edited is SQL NULL, not a JSON null.
    const [{ notEdited }] = (await database.db.select({ notEdited: sql<boolean>`${approvals.editedInput} is null` }).from(approvals).where(eq(approvals.id, approval.id))) as [{ notEdited: boolean }];
    expect(notEdited).toBe(true);

    // The grant goes with its chat.
    await database.db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, run.id));
    await deleteChatSession(database.db, session);
    expect(await grantsOf(session.id)).toEqual([]);
  });

  it('denies with a reason and grants nothing; the same decision again answers the stored one, a contrary one conflicts', async () => {
    const { approval, session } = await pendingApproval();
    const denied = await decideApproval(database.db, approval.id, owner, { decision: 'deny', reason: 'budget frozen' });
    expect(denied.approval).toMatchObject({ status: 'denied', reason: 'budget frozen', remember: false });
    expect(await grantsOf(session.id)).toEqual([]);
    expect((await auditOf(approval.id))[0]).toMatchObject({ action: 'approval.denied', details: { reason: 'budget frozen', edited: false, remember: false } });

    const again = await decideApproval(database.db, approval.id, owner, { decision: 'deny', reason: 'budget frozen' });
    expect(again).toEqual(denied);
    await expect(decideApproval(database.db, approval.id, owner, { decision: 'approve' })).rejects.toMatchObject({ details: { status: 'denied' } });
    await expect(decideApproval(database.db, approval.id, owner, { decision: 'approve' })).rejects.toBeInstanceOf(ConflictError);
    expect(await auditOf(approval.id)).toHaveLength(1);
  });

  it("is 404 for another user's approval and a missing one, and changes nothing; an admin may decide it", async () => {
    const { approval } = await pendingApproval();
    await expect(decideApproval(database.db, approval.id, stranger, { decision: 'approve' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(decideApproval(database.db, 'approval_missing', owner, { decision: 'approve' })).rejects.toBeInstanceOf(NotFoundError);
    expect((await getApprovalFor(database.db, approval.id, owner)).status).toBe('pending');
    expect(await auditOf(approval.id)).toEqual([]);
    const decided = await decideApproval(database.db, approval.id, admin, { decision: 'approve' });
    expect(decided.approval).toMatchObject({ status: 'approved', decidedBy: admin.id });
  });

  it('refuses an approval whose time is up, and records it as expired', async () => {
    const { approval } = await pendingApproval({ expiresInMs: -1000 });
    await expect(decideApproval(database.db, approval.id, owner, { decision: 'approve' })).rejects.toMatchObject({ details: { status: 'expired' } });
    expect((await getApprovalFor(database.db, approval.id, owner)).status).toBe('expired');
    expect((await auditOf(approval.id)).map((row) => row.action)).toEqual(['approval.expired']);
  });

  it('approves with an edited input checked against the tool schema; a bad edit changes nothing', async () => {
    const { approval } = await pendingApproval();
    await expect(decideApproval(database.db, approval.id, owner, { decision: 'approve', input: { expression: 42 } })).rejects.toBeInstanceOf(InvalidInputError);
    expect((await getApprovalFor(database.db, approval.id, owner)).status).toBe('pending');
    const decided = await decideApproval(database.db, approval.id, owner, { decision: 'approve', input: { expression: '6 * 8' } });
    expect(decided.approval).toMatchObject({ status: 'approved', editedInput: { expression: '6 * 8' }, input: { expression: '6 * 7' } });
    expect((await auditOf(approval.id))[0]).toMatchObject({ details: { edited: true } });
    const [row] = await database.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(row!.editedInput).toEqual({ expression: '6 * 8' });
  });

  it('lists every pending approval however many were decided after it, and the latest decisions first', async () => {
    const busy = { id: newId('user'), role: 'user' };
    await database.db.insert(users).values({ id: busy.id, email: `${busy.id}@test.local`, name: 'busy', passwordHash: 'x', role: 'user' });
    const session = await createChatSession(database.db, busy.id, {});
    const { run } = await startChatRun(database.db, { userId: busy.id, session, input: { content: 'compute', enableTools: true, enableThinking: false } });
    // Asked an hour ago and still waiting (a long approval timeout), then 510 calls asked and decided since.
    const waiting = await createApproval(database.db, { runId: run.id, userId: busy.id, toolCallId: 'call_waiting', toolId, toolName: 'calc', input: {}, expiresAt: new Date(Date.now() + 86_400_000) });
    await database.db.update(approvals).set({ createdAt: new Date(Date.now() - 3_600_000) }).where(eq(approvals.id, waiting.id));
    await database.db.execute(sql`
      insert into approvals (id, run_id, user_id, tool_call_id, tool_id, tool_name, input, input_hash, status, expires_at, decided_by, decided_at, created_at)
      select 'ap_many_' || lpad(i::text, 3, '0'), ${run.id}, ${busy.id}, 'call_' || i, ${toolId}, 'calc', '{}'::jsonb, 'h', case when i % 3 = 0 then 'denied' else 'approved' end,
             now() + interval '1 hour', ${busy.id}, now() - (600 - i) * interval '1 second', now() - (600 - i) * interval '1 second'
      from generate_series(1, 510) as i`);

    // Newest first, any status: the waiting one is not among the 500 newest.
    const everything = await listApprovals(database.db, busy, {});
    expect(everything.items).toHaveLength(500);
    expect(everything.total).toBe(511);
    expect(everything.items.map((approval) => approval.id)).not.toContain(waiting.id);
    // Each with its run's chat, for "Open chat".
    expect((await listApprovals(database.db, busy, { status: 'pending' })).items.map(({ id, sessionId }) => ({ id, sessionId }))).toEqual([{ id: waiting.id, sessionId: session.id }]);
    const { items: latest, total: decidedTotal } = await listApprovals(database.db, busy, { status: 'decided', limit: 50 });
    expect(decidedTotal).toBe(510);
    expect(latest.map((approval) => approval.id)).toEqual(Array.from({ length: 50 }, (_, index) => `ap_many_${510 - index}`));
    expect(new Set(latest.map((approval) => approval.status))).toEqual(new Set(['approved', 'denied']));
    expect(() => approvalQuerySchema.parse({ limit: 501 })).toThrow();
    expect(() => approvalQuerySchema.parse({ status: 'maybe' })).toThrow();
  });

  it("names who asked and who decided to an admin (the email when unnamed), and no one to the owner", async () => {
    const asker = { id: newId('user'), role: 'user' };
    await database.db.insert(users).values({ id: asker.id, email: `${asker.id}@test.local`, name: '', passwordHash: 'x', role: 'user' });
    const session = await createChatSession(database.db, asker.id, {});
    const { run } = await startChatRun(database.db, { userId: asker.id, session, input: { content: 'compute', enableTools: true, enableThinking: false } });
    const ask = (toolCallId: string) => createApproval(database.db, { runId: run.id, userId: asker.id, toolCallId, toolId, toolName: 'calc', input: {}, expiresAt: new Date(Date.now() + 60_000) });
    const decided = await ask('call_decided');
    const waiting = await ask('call_waiting');
    await database.db.update(users).set({ name: 'Ada Admin' }).where(eq(users.id, admin.id));
    await decideApproval(database.db, decided.id, admin, { decision: 'deny' });

    const named = (viewer: typeof admin) =>
      listApprovals(database.db, viewer, { runId: run.id }).then(({ items }) => items.map(({ id, userName, decidedByName }) => ({ id, userName, decidedByName })));
    expect(await named(admin)).toEqual([
      { id: waiting.id, userName: `${asker.id}@test.local`, decidedByName: null },
      { id: decided.id, userName: `${asker.id}@test.local`, decidedByName: 'Ada Admin' },
    ]);
    expect(await named(asker)).toEqual([
      { id: waiting.id, userName: null, decidedByName: null },
      { id: decided.id, userName: null, decidedByName: null },
    ]);
  });
});
