import { ErrorCode, Job, type JobsOptions, type JobType } from 'bullmq';
import { RUN_KIND_JOBS, type ChatRunOpening, type RunJob, type RunKind } from './catalog';
import { enqueue, type Queues } from './queues';
import { isDependencyDown } from '../services/errors';

type RunRef = { id: string; kind: RunKind; queueJobId: string | null };

/** The queue and job name that process this run's kind. */
export function runJobFor(run: Pick<RunRef, 'kind'>): RunJob {
  return RUN_KIND_JOBS[run.kind];
}

/** The id of the run's job: the run's own, unless it was enqueued under another. */
function runJobId(run: Pick<RunRef, 'id' | 'queueJobId'>): string {
  return run.queueJobId ?? run.id;
}

/** The run's BullMQ job, if Redis still has it. */
export async function findRunJob(queues: Queues, run: RunRef): Promise<Job | undefined> {
  return (await Job.fromId(queues[runJobFor(run).queue], runJobId(run))) ?? undefined;
}

/** The states of a job still to run or running: the reconciler leaves its run alone. */
const LIVE_JOB_STATES = ['active', 'wait', 'delayed', 'prioritized', 'waiting-children'] as const satisfies JobType[];
/** Ids per read: a backlog of a million jobs is read in pages, not in one reply. */
const LIVE_JOB_PAGE = 5_000;

/**
 * Which of `runs` have a live job (LIVE_JOB_STATES), read as each queue's job ids page by page (one
 * BullMQ getRanges script per page and state) rather than job by job: a backlog of queued runs is
 * what a reconcile meets under load, and reading each run's job cost two round trips and a job
 * parse per run in every worker, every interval. A job that moves between states while the pages
 * are read can be missed: the caller reads any run not in the set on its own (findRunJob).
 */
export async function runsWithLiveJobs(queues: Queues, runs: RunRef[], pageSize = LIVE_JOB_PAGE): Promise<Set<string>> {
  const live = new Set<string>();
  for (const queueKey of new Set(runs.map((run) => runJobFor(run).queue))) {
    const ids = new Set<string>();
    for (const state of LIVE_JOB_STATES) {
      for (let start = 0; ; start += pageSize) {
        const page = await queues[queueKey].getRanges([state], start, start + pageSize - 1);
        for (const id of page) ids.add(id);
        if (page.length < pageSize) break;
      }
    }
    for (const run of runs) if (runJobFor(run).queue === queueKey && ids.has(runJobId(run))) live.add(run.id);
  }
  return live;
}

/**
 * Moves a parked (delayed) run job to waiting now. False when there is nothing to promote: no job,
 * or it is not delayed (still parking: the worker re-checks PostgreSQL right after parking).
 * One script call: BullMQ's promote checks the job's state itself, so the job is not read first.
 */
export async function wakeRunJob(queues: Queues, run: RunRef): Promise<boolean> {
  const { queue, job } = runJobFor(run);
  try {
    await new Job(queues[queue], job, {}, {}, runJobId(run)).promote();
    return true;
  } catch (error) {
    // An outage is the caller's to handle; a missing or not-delayed job answers with an error code.
    if (isDependencyDown(error)) throw error;
    return false;
  }
}

/**
 * True when BullMQ refused a command on a job because the job is no longer this worker's: its key or
 * its lock is gone (Redis restarted without persistence) or another worker holds it. The run is then
 * PostgreSQL's to restore (the reconciler), not a failure of the run.
 */
export function isJobGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === ErrorCode.JobNotExist || code === ErrorCode.JobLockNotExist || code === ErrorCode.JobLockMismatch;
}

/** Enqueues the run's job under the run's own id (a duplicate add is a no-op in BullMQ). */
export async function enqueueRunJob(queues: Queues, run: Pick<RunRef, 'id' | 'kind'>, options: JobsOptions = {}) {
  const { queue, job } = runJobFor(run);
  return enqueue(queues, queue, job as never, { runId: run.id } as never, { jobId: run.id, ...options });
}

/**
 * Adds a created chat run's turn under the run's id; a session's first question carries its opening
 * (ChatRunOpening) so the worker sends the model call beside its claim. The add may overlap the
 * run's flush (StartedRun.durable), but nobody may hear of the run before both are done. A duplicate
 * add is a no-op, and a failed one leaves the run queued for the reconciler.
 */
export function enqueueChatTurn(queues: Queues, run: Pick<RunRef, 'id'>, opening?: ChatRunOpening) {
  return enqueue(queues, 'chatTurns', 'chat-turn', { runId: run.id, opening }, { jobId: run.id });
}
