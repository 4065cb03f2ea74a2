import type { Redis } from 'ioredis';
import type { RunEvent } from '../events';
import { runChannelCommands } from '../redis/pubsub';
import { runStreamKeys } from './keys';

type Listener = (events: RunEvent[]) => void;

/**
 * One pub/sub connection per process fanning live run events out to every SSE connection
 * following a run. Channels are subscribed while at least one listener needs them.
 */
export class RunEventHub {
  private listeners = new Map<string, Set<Listener>>();
  private readonly commands: ReturnType<typeof runChannelCommands>;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    this.commands = runChannelCommands(subscriber);
    subscriber.on(this.commands.message, (channel: string, message: string) => {
      const set = this.listeners.get(channel);
      if (!set) return;
      // Parsed once per message and shared by every follower (fanout: many SSE connections per run).
      const events = JSON.parse(message) as RunEvent[];
      for (const listener of set) listener(events);
    });
  }

  /** Starts delivering the run's live events to `listener`; resolves once subscribed. Returns the unsubscribe. */
  async subscribe(runId: string, listener: Listener): Promise<() => Promise<void>> {
    const channel = runStreamKeys(this.prefix, runId).channel;
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    if (set.size === 1) await this.subscriber[this.commands.subscribe](channel);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        await this.subscriber[this.commands.unsubscribe](channel).catch(() => {});
      }
    };
  }

  /** Number of runs with live listeners (for metrics and leak tests). */
  get activeChannels(): number {
    return this.listeners.size;
  }
}
