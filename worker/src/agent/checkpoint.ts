import { preparedQuery, runs, type RunCheckpoint } from '@agentq/shared/db';
import type { Run } from '@agentq/shared/services';
import { eq, sql } from 'drizzle-orm';
import type { WorkerDeps } from '../processor';
import { assembleMessage } from './assemble-message';
import type { RunStream } from './open-run-stream';

export type Checkpointer = {
  readonly current: RunCheckpoint | null;
  /**
   * Makes the progress so far durable: flushes the stream (so lastSeq covers every published event)
   * and writes the checkpoint in one UPDATE that also reads the run's status, which is the database
   * cancel flag checked at every step boundary for free. Resolves to whether the run was cancelled.
   */
  save: (next: RunCheckpoint) => Promise<{ cancelled: boolean }>;
  /**
   * The same checkpoint without its own write: flushes the stream and makes `next` the current
   * value, for finishRun to write in the statement that ends the run (the final step's checkpoint
   * and the run's outcome then commit together, one UPDATE fewer per run).
   */
  stage: (next: RunCheckpoint) => Promise<void>;
};

/** Built once per database handle: every step of every run writes one. */
const saveCheckpoint = preparedQuery((db) =>
  db
    .update(runs)
    // Placeholders go through the columns' encoders (jsonb) like values do; drizzle's types only lack them in set().
    // updated_at explicitly (it is the run's lease): its $onUpdate default would be frozen when the statement is built.
    .set({ checkpoint: sql.placeholder('checkpoint') as never, steps: sql.placeholder('steps') as never, usage: sql.placeholder('usage') as never, updatedAt: sql`now()` })
    .where(eq(runs.id, sql.placeholder('runId')))
    .returning({ status: runs.status })
    .prepare('save_checkpoint'),
);

/** A run's checkpoint writer; a retried job continues from the last saved value. */
export function createCheckpointer(deps: WorkerDeps, run: Run, stream: RunStream): Checkpointer {
  let current: RunCheckpoint | null = run.checkpoint ?? null;
  const complete = async (next: RunCheckpoint): Promise<RunCheckpoint> => {
    await stream.publisher.flush();
    // The message parts only matter if Redis loses the stream while the run waits for a human, so they are
    // assembled when parking; on the hot path a checkpoint is one UPDATE (see docs/benchmarks.md).
    const parts = next.awaitingApprovals?.length ? (await assembleMessage(run.id, stream.chunks())).parts : current?.parts;
    return { ...next, lastSeq: stream.publisher.lastSeq, parts, timeline: stream.timeline.snapshot() };
  };
  return {
    get current() {
      return current;
    },
    async save(next) {
      next = await complete(next);
      const [row] = await saveCheckpoint(deps.db).execute({ runId: run.id, checkpoint: next, steps: next.steps, usage: next.usage ?? null });
      current = next;
      return { cancelled: row?.status === 'cancelled' };
    },
    async stage(next) {
      current = await complete(next);
    },
  };
}
