import type { JobPayload } from '@agentq/shared/queues';
import { callsHaveNoEffect, claimRun, executeTool, findExpandedTool, finishToolRun, getRun, getTool, isTerminal, NotFoundError, runEndedEvent, storeToolRunDraft } from '@agentq/shared/services';
import type { ToolResult } from '@agentq/shared/tools';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { toolServices } from '../agent/build-tool-set';
import { notifyWebhooks } from '../agent/notify-webhooks';
import type { WorkerDeps } from '../processor';

/** The idempotency key of a standalone execution: one call per run, so a retried job never runs it twice. */
const STANDALONE_CALL_ID = 'standalone';

/** One standalone tool execution (POST /api/agent-tools/:id/execute): run it, log it, store the result on the run. */
export async function processToolExecution(job: Job<JobPayload<'toolExecutions', 'tool-exec'>>, deps: WorkerDeps): Promise<ToolResult> {
  const notFound = (error: unknown): never => {
    if (error instanceof NotFoundError) throw new UnrecoverableError(`Run ${job.data.runId} does not exist`);
    throw error;
  };
  // A type whose calls never have an effect needs no claim: a read (no commit) checks the run is still
  // to run, and the statement that logs the call ends it. Otherwise one statement claims the run (see
  // claimRun), the journal's begin; a run the table will not start has ended.
  // Through the config cache; a tool deleted meanwhile is NotFound.
  const toolOrNone = (toolId: string | null | undefined) =>
    toolId
      ? getTool(deps.db, toolId).catch((error: unknown) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        })
      : undefined;
  const namedTool = await toolOrNone(job.data.toolId);
  const unclaimed = namedTool !== undefined && callsHaveNoEffect(namedTool);
  const draft = job.data.draft && job.data.toolId ? { id: job.data.runId, toolId: job.data.toolId, ...job.data.draft, createdAt: new Date(job.data.draft.createdAt) } : undefined;
  // A draft is written with the call's log, unless there is no call to log: then it is stored first
  // and ends as any run does.
  const writesDraft = draft !== undefined && unclaimed && namedTool.enabled;
  if (draft && !writesDraft) await storeToolRunDraft(deps.db, draft);
  const { run, claimed, firstStart } = writesDraft
    ? { run: { ...draft, status: 'queued' as const, result: null }, claimed: true, firstStart: false }
    : unclaimed
      ? await getRun(deps.db, job.data.runId).then((read) => ({ run: read, claimed: !isTerminal(read.status), firstStart: false }), notFound)
      : await claimRun(deps.db, job.data.runId).catch(notFound);
  // The run ended (finished by an earlier attempt, or cancelled while queued). Never run it.
  if (!claimed) {
    if (run.status === 'cancelled') await notifyWebhooks(deps, run.userId, 'run.cancelled', () => runEndedEvent({ ...run, kind: 'tool', sessionId: null, status: 'cancelled' }, {}));
    return (run.result as ToolResult | null) ?? { success: false, error: `The execution was ${run.status} before it ran`, metadata: { durationMs: 0 } };
  }
  const tool = run.toolId === namedTool?.id ? namedTool : await toolOrNone(run.toolId);
  let result: ToolResult;
  let settled = false;
  if (!tool) {
    result = { success: false, error: 'The tool was deleted before it could run', metadata: { durationMs: 0 } };
  } else if (!tool.enabled) {
    result = { success: false, error: `Tool '${tool.slug}' is disabled`, metadata: { durationMs: 0 } };
  } else {
    const options = run.options as { input?: unknown; toolName?: string };
    const { replayed: _replayed, runSettled, ...executed } = await executeTool(deps.db, {
      tool,
      input: options.input ?? {},
      call: options.toolName ? findExpandedTool(tool, options.toolName) : null,
      appSecret: deps.config.appSecret,
      context: {
        userId: run.userId,
        runId: run.id,
        sessionId: null,
        toolCallId: STANDALONE_CALL_ID,
        allowPrivateNetworks: deps.allowPrivateNetworks,
        services: toolServices(deps),
      },
      // The claim was the call's journal begin; the log row, the journal entry and the run's end: one statement.
      ...(writesDraft ? { draft } : unclaimed ? { unclaimed: true } : { claimedAs: firstStart ? 'first' : 'again' }),
      settlesRun: true,
    });
    result = executed;
    settled = runSettled ?? false;
  }
  if (!settled) await finishToolRun(deps.db, run.id, result);
  const status = result.success ? 'succeeded' : 'failed';
  await notifyWebhooks(deps, run.userId, result.success ? 'run.completed' : 'run.failed', () =>
    runEndedEvent({ id: run.id, kind: 'tool', sessionId: null, status }, { answer: result.success ? toolAnswer(result.data) : undefined, error: result.success ? null : (result.error ?? 'failed') }),
  );
  deps.logger.info({ tool: tool?.slug, success: result.success, durationMs: result.metadata.durationMs }, 'tool execution finished');
  return result;
}

/** A standalone execution's output as a webhook's answer text. */
function toolAnswer(data: unknown): string {
  if (data === undefined || data === null) return '';
  return typeof data === 'string' ? data : JSON.stringify(data);
}
