import { publishJobOutcome, queueCatalog, type QueueKey } from '@agentq/shared/queues';
import { toRunErrorText } from '@agentq/shared/services';
import { MetricsTime, UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ProcessorMap, WorkerDeps } from './processor';
import { PromptWorker } from './prompt-worker';
import { startRunLeases } from './run-lease';

export type WorkerPool = {
  workers: Worker[];
  /**
   * Stops taking jobs and lets active ones finish for `deadlineMs`; then calls `onDeadline` (abort
   * running tools so their jobs hand over) and waits up to `handoverMs` more before force-closing.
   */
  close: (deadlineMs?: number, options?: { onDeadline?: () => void; handoverMs?: number }) => Promise<{ timedOut: boolean }>;
};

export type WorkerOptions = {
  connection: Redis;
  prefix: string;
  concurrency: number;
  /** Lock and stall timings decide how fast a crashed worker's job moves to another worker. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
};

/** Builds one BullMQ Worker per catalog queue, dispatching each job to its typed processor. */
export function startWorkers(processors: ProcessorMap, deps: WorkerDeps, options: WorkerOptions): WorkerPool {
  const leases = startRunLeases(deps.db);
  const workers = (Object.keys(queueCatalog) as QueueKey[]).map((queueKey) => {
    const definition = queueCatalog[queueKey];
    const handlers = processors[queueKey] as Record<string, (job: Job, deps: WorkerDeps, token?: string) => Promise<unknown>>;
    const worker = new PromptWorker(
      definition.name,
      async function processJob(job: Job, token?: string) {
        const handler = handlers[job.name];
        if (!handler) throw new UnrecoverableError(`No processor for job '${job.name}' on queue '${definition.name}'. Known: ${Object.keys(handlers).join(', ')}`);
        const schema = (definition.jobs as Record<string, { safeParse: (value: unknown) => { success: boolean; error?: unknown } }>)[job.name];
        const parsed = schema?.safeParse(job.data);
        if (!parsed?.success) throw new UnrecoverableError(`Invalid payload for '${job.name}': ${String(parsed?.error)}`);
        // Every line a job logs names its queue, job and run.
        const logger = deps.logger.child({ queue: definition.name, jobId: job.id, runId: (job.data as { runId?: string }).runId });
        const started = performance.now();
        logger.debug({ attempt: job.attemptsMade + 1 }, 'job started');
        // The run's lease tells the reconciler a worker is on it, even if Redis loses this job.
        const runId = (job.data as { runId?: string }).runId;
        const release = runId ? leases.hold(runId) : () => {};
        let result: unknown;
        try {
          result = await handler(job, { ...deps, logger }, token);
        } finally {
          release();
        }
        logger.debug({ durationMs: Math.round(performance.now() - started) }, 'job done');
        // The processor stored the result durably; a waiting request gets it now, before BullMQ marks the job completed.
        if (definition.deliversResult) await publishJobOutcome(deps.redis, options.prefix, definition.name, String(job.id), { ok: true, value: result }).catch((error) => logger.warn({ err: error }, 'could not deliver the job result'));
        return result;
      },
      {
        connection: options.connection,
        prefix: options.prefix,
        concurrency: options.concurrency,
        lockDuration: options.lockDurationMs ?? 30_000,
        stalledInterval: options.stalledIntervalMs ?? 15_000,
        maxStalledCount: 2,
        // Per-minute completed/failed counts for the dashboard's throughput chart (queue.getMetrics).
        metrics: { maxDataPoints: MetricsTime.ONE_WEEK },
      },
    );
    worker.on('failed', (job, error) => {
      deps.logger.warn({ queue: definition.name, jobId: job?.id, runId: (job?.data as { runId?: string } | undefined)?.runId, attemptsMade: job?.attemptsMade, err: error }, 'job failed');
      // finishedOn is set only when no retry follows. The waiting request shows the message to its
      // caller: never SQL or its parameters (a database error's text stays in the log line above).
      if (definition.deliversResult && job?.id && job.finishedOn) {
        void publishJobOutcome(deps.redis, options.prefix, definition.name, job.id, { ok: false, error: toRunErrorText(error) }).catch(() => {});
      }
    });
    if (!worker.quietMarkers) deps.logger.warn({ queue: definition.name }, 'BullMQ\'s moveToActive and moveToFinished scripts are not the ones worker/src/marker-scripts.ts was written for: they run as shipped');
    worker.on('error', (error) => deps.logger.error({ queue: definition.name, err: error }, 'worker error'));
    return worker;
  });

  return {
    workers,
    close: async (deadlineMs = 30_000, closeOptions = {}) => {
      leases.stop();
      const waitFor = (ms: number) => {
        let timer: NodeJS.Timeout | undefined;
        const promise = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), ms);
        });
        return { promise, cancel: () => clearTimeout(timer) };
      };
      // BullMQ's close() has no timeout of its own and can hang while Redis is unreachable.
      const closed = Promise.all(workers.map((worker) => worker.close())).then(() => 'closed' as const);
      const deadline = waitFor(deadlineMs);
      let outcome = await Promise.race([closed, deadline.promise]);
      deadline.cancel();
      if (outcome === 'timeout' && closeOptions.onDeadline) {
        // Active jobs outlived the deadline: abort their tools; each job records its calls as interrupted and hands over.
        closeOptions.onDeadline();
        const handover = waitFor(closeOptions.handoverMs ?? 5_000);
        outcome = await Promise.race([closed, handover.promise]);
        handover.cancel();
        if (outcome === 'closed') return { timedOut: true };
      }
      if (outcome === 'timeout') {
        // Force-close without waiting on jobs that ignore the deadline; their locks expire and stall recovery hands them on.
        const forced = Promise.allSettled(workers.map((worker) => worker.close(true)));
        await Promise.race([forced, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      }
      return { timedOut: outcome === 'timeout' };
    },
  };
}
