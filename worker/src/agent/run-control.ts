import { runControlChannel } from '@agentq/shared/run-stream';
import type { Redis } from 'ioredis';

/** The abort reason of a cancelled run (control channel or the database's cancel flag). */
export class RunCancelledError extends Error {
  override name = 'RunCancelledError';
  constructor() {
    super('Run cancelled');
  }
}

/**
 * Cancel requests for runs this process is working on. The API publishes `cancel <runId>` on one
 * control channel; whichever worker holds the run aborts it. Stop is not disconnect: nothing else stops a run.
 */
export class RunControl {
  private controllers = new Map<string, AbortController>();
  private ready: Promise<unknown>;

  constructor(private readonly subscriber: Redis, prefix: string) {
    const channel = runControlChannel(prefix);
    subscriber.on('message', (incoming: string, message: string) => {
      if (incoming !== channel) return;
      const [command, runId] = message.split(' ');
      if (command === 'cancel' && runId) this.controllers.get(runId)?.abort(new RunCancelledError());
    });
    this.ready = subscriber.subscribe(channel);
  }

  /** An abort signal that fires when the run is cancelled; call the returned release when the job ends. */
  async track(runId: string): Promise<{ signal: AbortSignal; release: () => void }> {
    await this.ready;
    const controller = new AbortController();
    this.controllers.set(runId, controller);
    return {
      signal: controller.signal,
      release: () => {
        if (this.controllers.get(runId) === controller) this.controllers.delete(runId);
      },
    };
  }

  /** Aborts one run's signal (the database says it was cancelled, or a tool hit a fatal error). */
  abort(runId: string, reason: unknown): void {
    this.controllers.get(runId)?.abort(reason);
  }

  /** Aborts every run this process holds (a stopping worker hands them over); returns how many. */
  abortAll(reason: unknown): number {
    for (const controller of this.controllers.values()) controller.abort(reason);
    return this.controllers.size;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}

