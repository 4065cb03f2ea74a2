import { lastRunEventSeq } from '@agentq/shared/run-stream';
import { approvalsForRun, claimChatRun, isDependencyDown, isTerminal, NotFoundError, openedChatRun, toolCallsOfRun, WorkerStoppingError, type Run } from '@agentq/shared/services';
import type { JobPayload } from '@agentq/shared/queues';
import type { Job } from 'bullmq';
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { WorkerDeps } from '../processor';
import { finishRun } from '../agent/finish-run';
import { afterModelRequestWrite } from '../agent/model-fetch';
import { openRunStream, readAll, type StreamReads } from '../agent/open-run-stream';
import { RunCancelledError } from '../agent/run-control';
import { loadRunSetup, type RunSetup } from '../agent/load-run-setup';
import { runLoop, type ResumeReads } from '../agent/run-loop';
import { createCheckpointer } from '../agent/checkpoint';
import type { RunProgress, Usage } from '../agent/stream-step';

export { STEP_LIMIT_NOTE } from '../agent/run-loop';

/**
 * One chat turn job: opens the run's stream where the last attempt left it and runs the loop
 * (agent/run-loop.ts). Decides what each way out means for BullMQ: parked (DelayedError), handed
 * over by a stopping worker (delayed to now, attempts untouched), retried from the checkpoint (a
 * database or Redis outage while attempts remain), or ended as cancelled/failed.
 */
export async function processChatTurn(job: Job<JobPayload<'chatTurns', 'chat-turn'>>, deps: WorkerDeps, token?: string): Promise<{ status: string }> {
  // Everything read before the first model call goes out with the claim: one round trip. A first
  // start reads its session's context in the claim itself and the stream's position beside it. A
  // later start (after parking, a retry or a crash) has a checkpoint instead of that context; it
  // continues a stream and checks its approvals and journaled calls, so it reads those beside it.
  const firstAttempt = job.attemptsStarted <= 1;
  const { runId } = job.data;
  const opening = firstAttempt ? job.data.opening : undefined;
  // An opened start's claim and stream read go out once its model request is written (see below).
  const send = <T>(read: () => Promise<T>): Promise<T> => (opening ? afterModelRequestWrite().then(read) : read());
  const streamReads: StreamReads = firstAttempt ? { lastSeq: send(() => lastRunEventSeq(deps.redis, deps.config.prefix, runId)) } : { events: readAll(deps, runId) };
  const resumeReads: ResumeReads | undefined = firstAttempt ? undefined : { approvals: approvalsForRun(deps.db, runId), toolCalls: toolCallsOfRun(deps.db, runId) };
  // Awaited by whoever needs them; a claim that fails first leaves them unobserved, not unhandled.
  for (const read of [streamReads.lastSeq, streamReads.events, resumeReads?.approvals, resumeReads?.toolCalls]) read?.catch(() => {});
  // An outage keeps its identity (BullMQ retries); only a run that really is not there is unrecoverable.
  const claim = send(() => claimChatRun(deps.db, runId, { withContext: firstAttempt })).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new UnrecoverableError(`Run ${runId} does not exist`);
    throw error;
  });
  if (opening) {
    // A session's first question: its job carries all the first model call needs, so the call goes
    // out beside the claim and the stream's read instead of after them: the request is started in
    // this same run of microtasks, and the two reads are built and sent once it is written rather
    // than first (on a box just woken from idle, that CPU came before the request). It starts a new
    // stream: the first attempt of a run its API just stored has published nothing. Nothing is
    // published or written before the claim returns; a run it did not claim (cancelled meanwhile),
    // or a stream that is not new after all, aborts the call, and the run goes the ordinary way below.
    const opened = openedChatRun(runId, opening);
    const ready = Promise.all([claim, streamReads.lastSeq!]).then(([{ run, claimed, context }, lastSeq]) => {
      if (!claimed || lastSeq !== 0) throw new OpeningRefusedError();
      Object.assign(opened.run, run);
      for (const grant of context?.grants ?? []) opened.context.grants.add(grant);
    });
    ready.catch(() => {});
    try {
      return await attempt(job, deps, token, { run: opened.run, setup: loadRunSetup(deps, opened.run, null, opened.context), streamReads: { lastSeq: Promise.resolve(0) }, ready });
    } catch (error) {
      if (!(error instanceof OpeningRefusedError)) throw error;
    }
  }
  const { run, claimed, context } = await claim;
  if (run.kind !== 'chat' || !run.sessionId) throw new UnrecoverableError(`Run ${run.id} is not a chat run`);
  // The lookups before the first model call and the stream's position are independent: one round trip for both.
  return attempt(job, deps, token, { run, setup: claimed ? loadRunSetup(deps, run, run.checkpoint, context) : undefined, streamReads, resumeReads });
}

/** An opened start cannot go on (its claim refused the run, or its stream was not new): its early model call is dropped. */
class OpeningRefusedError extends Error {
  override name = 'OpeningRefusedError';
}

type Attempt = {
  run: Run;
  /** Set when the run is claimed (or being claimed: `ready`) and its setup loading. */
  setup?: Promise<RunSetup>;
  streamReads: StreamReads;
  resumeReads?: ResumeReads;
  /** The claim of a run started before it returned (see runLoop's `ready`). */
  ready?: Promise<void>;
};

/** One attempt at a run: its stream opened, the loop run, and what each way out means for BullMQ. */
async function attempt(job: Job, deps: WorkerDeps, token: string | undefined, { run, setup, streamReads, resumeReads, ready }: Attempt): Promise<{ status: string }> {
  const log = deps.logger;
  setup?.catch(() => {}); // awaited by the loop; this only keeps an early way out from leaving it unobserved
  const [control, stream] = await Promise.all([deps.control.track(run.id), openRunStream(deps, run, job.attemptsMade + 1, streamReads)]);
  if (ready) {
    stream.publisher.holdUntil(ready);
    // A refused claim stops the early model call at once.
    ready.catch((reason: unknown) => deps.control.abort(run.id, reason));
  }
  const progress: RunProgress = { steps: run.steps, usage: (run.usage as Usage) ?? {} };
  const settle = (outcome: Parameters<typeof finishRun>[1]['outcome']) =>
    finishRun(deps, { run, stream, checkpointer: createCheckpointer(deps, run, stream), progress, outcome });
  try {
    if (isTerminal(run.status)) {
      if (run.status === 'cancelled' && !stream.finished()) {
        // Cancelled while queued or parked: record the partial answer and end the stream so followers stop waiting.
        await settle({ status: 'cancelled', finishReason: 'cancelled' });
      } else if (stream.resumed && !stream.finished()) {
        // Finished just before a crash: the database has the outcome; only the stream's end is missing.
        stream.status({ status: run.status, finishReason: run.finishReason ?? undefined, steps: run.steps, error: run.error ?? undefined });
        stream.emit({ type: 'finish', finishReason: (run.finishReason as never) ?? undefined });
        await stream.publisher.close();
      }
      return { status: run.status };
    }
    const outcome = await runLoop(deps, { run, job, token, stream, progress, setup, resumeReads, ready, signal: control.signal, abort: (reason) => deps.control.abort(run.id, reason) });
    if (ready) await ready;
    if (outcome.status === 'cancelled' && !stream.finished()) await settle({ status: 'cancelled', finishReason: 'cancelled' });
    return outcome;
  } catch (error) {
    // Whatever ended an unconfirmed start, the claim decides first: a refusal or the claim's own failure is the answer.
    if (ready) await ready;
    if (error instanceof DelayedError) throw error;
    const reason = control.signal.aborted ? control.signal.reason : error;
    if (reason instanceof WorkerStoppingError || error instanceof WorkerStoppingError) {
      // Graceful stop: hand the run over now, without spending an attempt; its calls are journaled as interrupted.
      await stream.publisher.flush().catch(() => {});
      if (token) {
        await job.moveToDelayed(Date.now(), token);
        log.info('run handed over by a stopping worker');
        throw new DelayedError();
      }
      throw reason;
    }
    if (reason instanceof RunCancelledError) {
      await settle({ status: 'cancelled', finishReason: 'cancelled' }).catch((finishError) => log.error({ err: finishError }, 'could not record cancellation'));
      return { status: 'cancelled' };
    }
    if (isDependencyDown(reason) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) {
      // PostgreSQL or Redis hiccup: flush what we have and let BullMQ retry from the checkpoint with backoff.
      await stream.publisher.flush().catch(() => {});
      log.warn({ err: reason, attempt: job.attemptsMade + 1 }, 'run hit an outage; retrying from the checkpoint');
      throw reason;
    }
    log.warn({ err: reason }, 'run failed');
    return { status: await settle({ status: 'failed', error: reason instanceof Error ? reason.message : String(reason) }) };
  } finally {
    control.release();
  }
}
