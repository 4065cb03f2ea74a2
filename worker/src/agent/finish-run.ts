import { chatSessions, messages } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { closeApprovalsOfRun, toRunErrorText, transitionRun, type Run, type TerminalRunStatus } from '@agentq/shared/services';
import type { UIMessage } from 'ai';
import { and, eq } from 'drizzle-orm';
import type { WorkerDeps } from '../processor';
import { assembleMessage } from './assemble-message';
import type { Checkpointer } from './checkpoint';
import type { RunStream } from './open-run-stream';
import type { RunProgress } from './stream-step';

class AlreadyFinished extends Error {
  constructor(readonly status: 'succeeded' | 'failed') {
    super(`run already ${status}`);
  }
}

export type RunOutcome = { status: TerminalRunStatus; finishReason?: string; error?: string; hitStepLimit?: boolean };

/**
 * Ends a run: its assistant message, status and outcome in one transaction through the run
 * lifecycle, then the final status and `finish` on the stream. A run cancelled meanwhile stays
 * cancelled (the lifecycle refuses succeeded/failed after cancelled): it never reports success.
 * Returns the status the run ended with.
 */
export async function finishRun(
  deps: WorkerDeps,
  options: { run: Run; stream: RunStream; checkpointer: Checkpointer; progress: RunProgress; outcome: RunOutcome; message?: UIMessage },
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
    // The final timeline (approval responses, the last tool results) outlives the event stream.
    checkpoint: { ...(checkpointer.current ?? { messages: [], steps: progress.steps }), timeline: stream.timeline.snapshot() },
  });
  const settled = await deps.db
    .transaction(async (tx) => {
      // Issued together so postgres.js pipelines them on the transaction's connection (in this order);
      // a refusal below rolls all of them back.
      const [, , moved] = await Promise.all([
        tx.delete(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant'))),
        message.parts.length > 0 ? tx.insert(messages).values({ id: newId('message'), sessionId: run.sessionId!, role: 'assistant', parts: message.parts, runId: run.id }) : null,
        transitionRun(tx, run.id, outcome.status, fields(outcome)),
        tx.update(chatSessions).set({ updatedAt: new Date() }).where(eq(chatSessions.id, run.sessionId!)),
      ]);
      if (!moved.ok && moved.reason === 'not-allowed' && moved.status === 'cancelled') {
        // Cancelled while we were finishing: settle as cancelled, keeping the partial answer.
        outcome = { status: 'cancelled', finishReason: 'cancelled' };
        await transitionRun(tx, run.id, 'cancelled', fields(outcome));
      } else if (!moved.ok && moved.reason === 'not-allowed' && (moved.status === 'succeeded' || moved.status === 'failed')) {
        // Another attempt finished the run first: its message and outcome stand (roll ours back).
        throw new AlreadyFinished(moved.status);
      }
      return null;
    })
    .catch((error: unknown) => {
      if (error instanceof AlreadyFinished) return error.status;
      throw error;
    });
  if (settled) {
    deps.logger.warn({ status: settled }, 'run already finished by another attempt; this one ends without writing');
    return settled;
  }
  if (outcome.status === 'cancelled') await closeApprovalsOfRun(deps.db, run.id, 'run cancelled');
  if (outcome.error) stream.emit({ type: 'error', errorText: outcome.error });
  stream.status({ status: outcome.status, finishReason: outcome.finishReason, steps: progress.steps, usage: progress.usage, hitStepLimit: outcome.hitStepLimit, error: outcome.error });
  stream.emit({ type: 'finish', finishReason: (outcome.finishReason as never) ?? undefined });
  await stream.publisher.close();
  deps.logger.info({ status: outcome.status, finishReason: outcome.finishReason, steps: progress.steps, usage: progress.usage, hitStepLimit: outcome.hitStepLimit }, 'run finished');
  return outcome.status;
}
