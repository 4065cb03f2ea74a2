import { Worker, type Job } from 'bullmq';

/**
 * BullMQ's Worker, starting a job that woke it from idle without first polling for another.
 * An idle worker waits on the queue's marker, then takes the job with `moveToActive`, which puts
 * the marker back. BullMQ's loop then polls again with a second `moveToActive` and awaits it
 * before it starts the job it has: one more round trip to Redis on the way to every job an idle
 * worker takes (a serial run's first token waits for it). Marked drained instead, the loop waits
 * on the marker again, which that put-back marker answers at once, and starts the job meanwhile.
 * No job is left waiting unseen: every job taken puts a marker back, and whoever pops a marker
 * calls moveToActive next, as when BullMQ finds the queue empty. A worker taking jobs one after
 * another from a backlog (moveToActive without waiting first) polls as before.
 */
export class PromptWorker extends Worker {
  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    // BullMQ keeps `drained` private; it is set while the loop takes the marker path.
    const loop = this as unknown as { drained: boolean };
    const wokenFromIdle = loop.drained;
    const job = await super.moveToActive(token, name);
    if (job && wokenFromIdle) loop.drained = true;
    return job;
  }
}
