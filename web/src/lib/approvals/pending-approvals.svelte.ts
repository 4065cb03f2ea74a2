import { getContext, setContext } from 'svelte';
import { countPendingApprovals } from './approvals-api.ts';

const CONTEXT_KEY = Symbol('pending-approvals');
const DEFAULT_INTERVAL_MS = 5000;

/**
 * How many approvals wait for the signed-in user: the navigation badge. Polls the count while the
 * tab is visible, and anything that decides an approval asks for a refresh at once. The app layout
 * creates one and shares it through context; approval cards also read `viewerId` from it.
 * @example const pending = setPendingApprovals(new PendingApprovals(() => data.user.id)); $effect(() => pending.start());
 */
export class PendingApprovals {
  /** undefined until the first answer. */
  count = $state<number | undefined>(undefined);
  readonly #viewer: () => string;
  readonly #intervalMs: number;
  #inflight: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  /** @param viewer the signed-in user's id (read when needed, so it follows the layout's data). */
  constructor(viewer: () => string, options: { intervalMs?: number } = {}) {
    this.#viewer = viewer;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  get viewerId(): string {
    return this.#viewer();
  }

  /** Starts polling; returns the function that stops it (an `$effect` teardown). */
  start(): () => void {
    void this.refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void this.refresh();
    }, this.#intervalMs);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void this.refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }

  /**
   * Reads the count now. A call made while a read is in flight gets one more read after it (the
   * running one may predate a decision); further calls share that one. A failed read keeps the count.
   */
  refresh(): Promise<void> {
    if (this.#inflight) {
      this.#queued ??= this.#inflight.then(() => {
        this.#queued = undefined;
        return this.refresh();
      });
      return this.#queued;
    }
    this.#inflight = countPendingApprovals()
      .then((count) => void (this.count = count))
      .catch(() => {})
      .finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }
}

export function setPendingApprovals(pending: PendingApprovals): PendingApprovals {
  return setContext(CONTEXT_KEY, pending);
}

/** The layout's instance; undefined outside the app shell (a component rendered on its own). */
export function getPendingApprovals(): PendingApprovals | undefined {
  return getContext<PendingApprovals | undefined>(CONTEXT_KEY);
}
