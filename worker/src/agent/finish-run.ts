import type { SessionTitleData } from '@agentq/shared/events';
import { closeApprovalsOfRun, messageText, recordRunSpend, runCost, runEndedEvent, runEndEventType, runTokens, settleChatRun, toRunErrorText, type ModelPrices, type Run, type TerminalRunStatus } from '@agentq/shared/services';
import type { UIMessage } from 'ai';
import type { WorkerDeps } from '../processor';
import { assembleMessage } from './assemble-message';
import type { Checkpointer } from './checkpoint';
import { notifyWebhooks } from './notify-webhooks';
import type { RunStream } from './open-run-stream';
import type { RunProgress } from './stream-step';

export type RunOutcome = { status: TerminalRunStatus; finishReason?: string; error?: string; hitStepLimit?: boolean };

/**
 * Ends a run: its assistant message, status and outcome in one statement that only writes when the
 * run lifecycle allows the move (settleChatRun), then the final status and `finish` on the stream. A run cancelled meanwhile stays
 * cancelled (the lifecycle refuses succeeded/failed after cancelled): it never reports success.
 * Returns the status the run ended with.
 */
export async function finishRun(
  deps: WorkerDeps,
  options: {
    run: Run;
    stream: RunStream;
    checkpointer: Checkpointer;
    progress: RunProgress;
    outcome: RunOutcome;
    message?: UIMessage;
    /** The chat's model naming the chat (nameChat, which settles within its timeout): its title goes out before the run's end. */
    naming?: Promise<SessionTitleData | null>;
    /** The run's model's prices (none when the run never loaded its model): the run's cost. */
    prices?: ModelPrices | null;
  },
): Promise<TerminalRunStatus> {
  const { run, stream, checkpointer, progress } = options;
  let outcome: RunOutcome = { ...options.outcome, error: options.outcome.error === undefined ? undefined : toRunErrorText(options.outcome.error) };
  await stream.publisher.flush();
  const message = options.message ?? (await assembleMessage(run.id, stream.chunks()));
  const fields = (next: RunOutcome) => ({
    finishReason: next.finishReason ?? null,
    error: next.error ?? null,
    hitStepLimit: next.hitStepLimit ?? false,
    steps: progress.steps,
    usage: progress.usage,
    cost: runCost(progress.usage, options.prices),
    // The final timeline (approval responses, the last tool results) outlives the event stream.
    checkpoint: { ...(checkpointer.current ?? { messages: [], steps: progress.steps }), timeline: stream.timeline.snapshot() },
  });
  const settle = (next: RunOutcome) => settleChatRun(deps.db, run, { status: next.status, fields: fields(next), parts: message.parts });
  // Only a run whose model names its chat waits here, and at most the naming's own timeout (it
  // started with the run, so usually it is long done): a follower sees the title before the end.
  const named = options.naming && (await options.naming);
  if (named) stream.emit({ type: 'data-session-title', data: named, transient: true });
  const moved = await settle(outcome);
  if (!moved.moved && (moved.status === 'succeeded' || moved.status === 'failed')) {
    // Another attempt finished the run first: its message and outcome stand (nothing of ours was written).
    deps.logger.warn({ status: moved.status }, 'run already finished by another attempt; this one ends without writing');
    return moved.status;
  }
  if (!moved.moved && moved.status === 'cancelled') {
    // Cancelled while we were finishing: settle as cancelled, keeping the partial answer.
    outcome = { status: 'cancelled', finishReason: 'cancelled' };
    await settle(outcome);
  }
  if (outcome.status === 'cancelled') await closeApprovalsOfRun(deps.db, run.id, 'run cancelled');
  if (outcome.error) stream.emit({ type: 'error', errorText: outcome.error });
  stream.status({ status: outcome.status, finishReason: outcome.finishReason, steps: progress.steps, usage: progress.usage, hitStepLimit: outcome.hitStepLimit, error: outcome.error });
  stream.emit({ type: 'finish', finishReason: (outcome.finishReason as never) ?? undefined });
  await stream.publisher.close();
  // Its user's usage-limit counters, after the stream's end (a cached lookup when no limit is set); a side channel, never the run's failure.
  await recordRunSpend({ db: deps.db, redis: deps.redis, prefix: deps.config.prefix }, run, runTokens(progress.usage)).catch((error: unknown) =>
    deps.logger.warn({ err: error }, 'could not count the run\'s tokens against its user\'s usage limit'),
  );
  // After the stream's end, so followers never wait on it; a user without webhooks pays a cached lookup.
  const ended = outcome;
  await notifyWebhooks(deps, run.userId, runEndEventType(ended.status), () =>
    runEndedEvent({ ...run, status: ended.status, finishReason: ended.finishReason }, { answer: messageText(message.parts), error: ended.error, steps: progress.steps }),
  );
  deps.logger.info({ status: outcome.status, finishReason: outcome.finishReason, steps: progress.steps, usage: progress.usage, hitStepLimit: outcome.hitStepLimit }, 'run finished');
  return outcome.status;
}
