import type { Redis } from 'ioredis';
import type { RunEvent } from '../events';
import { waitForRedis } from '../redis';
import { runChannelCommands } from '../redis/pubsub';
import { runStreamKeys } from './keys';

type Listener = (events: RunEvent[]) => void;
type Follower = { onEvents: Listener; onResync?: () => void };

/** How long a new follower waits for a first SUBSCRIBE before the request is told Redis is down. */
const SUBSCRIBE_TIMEOUT_MS = 2_000;

/**
 * One pub/sub connection per process fanning live run events out to every SSE connection
 * following a run. Channels are subscribed while at least one listener needs them.
 *
 * Pub/sub delivers at most once: whatever is published while the connection is down is gone. So
 * after a reconnect the hub subscribes every followed channel again and only then tells each
 * follower to re-read its run's stream from the last event it delivered (`onResync`); events
 * published after that arrive live, everything before is in the stream.
 */
export class RunEventHub {
  private listeners = new Map<string, Set<Follower>>();
  /** Each followed channel's first SUBSCRIBE (settled once it holds or failed). */
  private subscribing = new Map<string, Promise<void>>();
  private disconnected = false;
  /** How many times the connection came back (for tests and metrics). */
  reconnects = 0;
  private readonly commands: ReturnType<typeof runChannelCommands>;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    this.commands = runChannelCommands(subscriber);
    subscriber.on(this.commands.message, (channel: string, message: string) => {
      const set = this.listeners.get(channel);
      if (!set) return;
      let events: RunEvent[];
      try {
        // Parsed once per message and shared by every follower (fanout: many SSE connections per run).
        events = JSON.parse(message) as RunEvent[];
      } catch {
        return;
      }
      for (const follower of set) follower.onEvents(events);
    });
    subscriber.on('close', () => {
      this.disconnected = true;
    });
    subscriber.on('ready', () => {
      if (!this.disconnected) return;
      this.disconnected = false;
      this.reconnects += 1;
      void this.resubscribe();
    });
  }

  private async resubscribe() {
    const channels = [...this.listeners.keys()];
    try {
      // ioredis re-subscribes by itself too; doing it here means the resync below starts only once it holds.
      // One channel per call: sharded channels of different runs live in different slots.
      await Promise.all(channels.map((channel) => this.subscriber[this.commands.subscribe](channel)));
    } catch {
      // Lost again already: the next 'ready' repeats this. Followers also re-read on their heartbeat.
      return;
    }
    for (const channel of channels) for (const follower of this.listeners.get(channel) ?? []) follower.onResync?.();
  }

  /**
   * Starts delivering the run's live events to `listener`; resolves once subscribed, rejects with a
   * "Redis not ready" error (a dependency-down error) when Redis is unreachable. `onResync` is called
   * after every reconnect: re-read the run's stream from the last delivered event. Returns the unsubscribe.
   */
  async subscribe(runId: string, listener: Listener, onResync?: () => void): Promise<() => Promise<void>> {
    // A reconnecting subscriber fails this request fast (503) instead of holding it open with nothing to say.
    if (this.subscriber.status !== 'ready') await waitForRedis(this.subscriber, SUBSCRIBE_TIMEOUT_MS);
    const channel = runStreamKeys(this.prefix, runId).channel;
    let set = this.listeners.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    const follower: Follower = { onEvents: listener, onResync };
    set.add(follower);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      set.delete(follower);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        this.subscribing.delete(channel);
        await this.subscriber[this.commands.unsubscribe](channel).catch(() => {});
      }
    };
    if (first) this.subscribing.set(channel, this.subscribeWithin(channel, SUBSCRIBE_TIMEOUT_MS));
    try {
      // A follower joining while the channel's first SUBSCRIBE is still on its way waits for it too:
      // resolving earlier, it would read the stream before live events reach it and miss what is
      // published in between until its next heartbeat.
      await this.subscribing.get(channel);
    } catch (error) {
      // Not awaited: UNSUBSCRIBE waits for the same connection that just failed us.
      void release();
      throw error;
    }
    return release;
  }

  private async subscribeWithin(channel: string, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis not ready: SUBSCRIBE did not complete')), timeoutMs);
    });
    try {
      await Promise.race([this.subscriber[this.commands.subscribe](channel), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Number of runs with live listeners (for metrics and leak tests). */
  get activeChannels(): number {
    return this.listeners.size;
  }
}
