import { runControlChannel } from '@agentq/shared/run-stream';
import type { Redis } from 'ioredis';

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
      if (command === 'cancel' && runId) this.controllers.get(runId)?.abort(new Error('Run cancelled'));
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

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}

