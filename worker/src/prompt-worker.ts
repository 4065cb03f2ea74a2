import { Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';
import { afterModelRequestWrite } from './agent/model-fetch';
import { defineMarkerScripts } from './marker-scripts';

/**
 * BullMQ's Worker, taking jobs without the polls that find nothing.
 *
 * It starts a job that woke it from idle without first polling for another. An idle worker waits
 * on the queue's marker, then takes the job with `moveToActive`. BullMQ's loop then polls again
 * with a second `moveToActive` and awaits it before it starts the job it has: one more round trip
 * to Redis on the way to every job an idle worker takes (a serial run's first token waits for it).
 * Marked drained instead, the loop waits on the marker again, and starts the job meanwhile.
 *
 * And taking a job puts the marker back only while another job waits (marker-scripts.ts), where
 * BullMQ always puts it back: that marker woke an idle worker, this one's next wait or another
 * process, for a `moveToActive` that found nothing.
 *
 * No job is left waiting unseen: an add sets the marker, a job taken while others wait puts it
 * back, and whoever pops a marker calls moveToActive next, as when BullMQ finds the queue empty. A
 * worker taking jobs one after another from a backlog (moveToActive without waiting first) polls
 * as before.
 */
export class PromptWorker extends Worker {
  /** Whether the connection runs marker-scripts.ts's versions of BullMQ's scripts (false: the installed BullMQ's differ; they run as shipped). */
  readonly quietMarkers: boolean;

  /** A job just taken from idle: its start runs before the loop's next marker wait is built and sent. */
  private startingFromIdle = false;

  constructor(name: string, processor: Processor, options: WorkerOptions) {
    super(name, processor, options);
    // BullMQ defines its scripts on the connection once it is ready (a tick from now at the
    // soonest) and keeps a command already there; one defined earlier is replaced.
    this.quietMarkers = defineMarkerScripts(options.connection);
    // BullMQ keeps `waitForJob` private. Right after it starts a job, its loop goes on to wait on
    // the marker again, in the same run of microtasks as the job's own start: on a worker woken
    // from idle, building and sending that BZPOPMIN came before the job's first request (a chat
    // run's model call). The wait now begins once that request is written (afterModelRequestWrite:
    // undici writes it from an immediate); the marker stays in Redis meanwhile, so a job added in
    // between is taken as before.
    const loop = this as unknown as { waitForJob: (blockUntil: number) => Promise<number> };
    const waitForJob = loop.waitForJob.bind(this);
    loop.waitForJob = async (blockUntil) => {
      if (this.startingFromIdle) {
        this.startingFromIdle = false;
        await afterModelRequestWrite();
      }
      return waitForJob(blockUntil);
    };
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    // BullMQ keeps `drained` private; it is set while the loop takes the marker path.
    const loop = this as unknown as { drained: boolean };
    const wokenFromIdle = loop.drained;
    const job = await super.moveToActive(token, name);
    if (job && wokenFromIdle) {
      loop.drained = true;
      this.startingFromIdle = true;
    }
    return job;
  }
}
