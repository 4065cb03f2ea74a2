/**
 * Writes a run's output waits for: the step checkpoints, and the log row of a call with no effect
 * (executeTool's `deferLog`). Each overlaps the model request after it, and the run publishes
 * nothing that follows a write before it has committed. Each starts after the one before it, so they
 * commit in order and a failed one stops the ones after it; the failure stays with the chain and
 * `settled` rethrows it.
 */
export type WriteChain = {
  /** Starts `write` once the writes before it have committed. */
  add: (write: () => Promise<void>) => void;
  /** A write already under way, ordered after the ones before it. */
  addStarted: (written: Promise<void>) => void;
  /** Some write has not committed yet. */
  readonly pending: boolean;
  /** Resolves once every write added so far has committed; rejects with the first failure. */
  settled: () => Promise<void>;
};

export function createWriteChain(): WriteChain {
  let tail: Promise<void> = Promise.resolve();
  let pending = false;
  const add = (write: () => Promise<void>) => {
    const written = tail.then(write);
    tail = written;
    pending = true;
    // The rejection is kept for settled(); this handler only clears the flag.
    written.then(
      () => {
        if (tail === written) pending = false;
      },
      () => {},
    );
  };
  return {
    add,
    addStarted: (written) => {
      // Handled here as well: it may fail before the writes ahead of it are done.
      written.catch(() => {});
      add(() => written);
    },
    get pending() {
      return pending;
    },
    settled: () => tail,
  };
}
