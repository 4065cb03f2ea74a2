import type { RunCheckpoint } from '@agentq/shared/db';
import { isJobGone } from '@agentq/shared/queues';
import { approvalRequestedEvent, approvalsForRun, createApproval, transitionRun, type Run } from '@agentq/shared/services';
import { DelayedError, type Job } from 'bullmq';
import type { WorkerDeps } from '../processor';
import type { OfferedModelTool } from './build-tool-set';
import { notifyWebhooks } from './notify-webhooks';
import type { RunStream } from './open-run-stream';

export type AwaitingApprovals = NonNullable<RunCheckpoint['awaitingApprovals']>;

/** Stores the step's approval requests and tells followers; the caller checkpoints them. */
export async function requestApprovals(
  deps: WorkerDeps,
  options: { run: Run; stream: RunStream; offered: OfferedModelTool[]; defaultTimeoutMs: number; requests: { sdkApprovalId: string; toolCallId: string; toolName: string; input: unknown }[] },
): Promise<AwaitingApprovals> {
  const awaiting: AwaitingApprovals = [];
  for (const request of options.requests) {
    const entry = options.offered.find((candidate) => candidate.name === request.toolName);
    const timeoutMs = entry?.approvalTimeoutMs ?? options.defaultTimeoutMs;
    const approval = await createApproval(deps.db, {
      runId: options.run.id,
      userId: options.run.userId,
      toolCallId: request.toolCallId,
      toolId: entry?.tool.id ?? null,
      toolName: request.toolName,
      input: request.input,
      expiresAt: new Date(Date.now() + timeoutMs),
    });
    awaiting.push({ approvalId: approval.id, sdkApprovalId: request.sdkApprovalId, toolCallId: request.toolCallId });
    options.stream.emit({
      type: 'data-approval-request',
      id: approval.id,
      data: { approvalId: approval.id, toolCallId: request.toolCallId, toolName: request.toolName, input: request.input, expiresAt: approval.expiresAt.toISOString() },
    });
    await notifyWebhooks(deps, options.run.userId, 'approval.requested', () => approvalRequestedEvent(options.run, approval));
  }
  return awaiting;
}

/**
 * Parks the job until a decision promotes it or the earliest approval expires: it leaves the worker
 * (no slot held) by throwing DelayedError. Returns instead when every approval got decided meanwhile
 * (the caller goes round again).
 */
export async function parkForApproval(deps: WorkerDeps, options: { run: Run; job: Job; token: string | undefined; stream: RunStream }): Promise<'decided'> {
  const { run, job, token, stream } = options;
  await transitionRun(deps.db, run.id, 'awaiting_approval');
  stream.status({ status: 'awaiting_approval' });
  await stream.publisher.flush();
  const pendingRows = (await approvalsForRun(deps.db, run.id)).filter((row) => row.status === 'pending');
  // Decided between the caller's check and now: go round again instead of parking.
  if (pendingRows.length === 0) return 'decided';
  const wakeAt = Math.min(...pendingRows.map((row) => row.expiresAt.getTime())) + 250;
  if (!token) throw new Error('cannot park a job without its lock token');
  try {
    await job.moveToDelayed(wakeAt, token);
  } catch (error) {
    if (!isJobGone(error)) throw error;
    // Redis lost the job after the run was marked parked: the run stays awaiting approval in
    // PostgreSQL and the reconciler enqueues it again. DelayedError ends the attempt without a write.
    deps.logger.warn({ err: error, approvals: pendingRows.map((row) => row.id) }, 'run parked but its job is gone from Redis; left for the reconciler');
    throw new DelayedError();
  }
  // A decision may have landed after our check but before the job was delayed: then nobody promoted it.
  if ((await approvalsForRun(deps.db, run.id)).every((row) => row.status !== 'pending')) await job.promote().catch(() => {});
  deps.logger.info({ approvals: pendingRows.map((row) => row.id), wakeAt: new Date(wakeAt).toISOString() }, 'run parked for approval');
  throw new DelayedError();
}
