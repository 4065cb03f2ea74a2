import type { Redis } from 'ioredis';
import type { Database } from '../db/client';

/**
 * What rarely changes and every run reads: models, agents (with their tool associations) and tool
 * instances. Admins edit them; runs read them several times each. One snapshot of the whole set
 * is cached per process and dropped on any change, so there is no cascade to get wrong (deleting a
 * model clears agents' model, deleting a tool their associations).
 */
export type ConfigScope = 'agent-config';

export type ConfigCacheOptions = {
  /** Publishes invalidations (a normal command connection). */
  publisher: Redis;
  /** A connection this cache puts into subscriber mode; not shared with other commands. */
  subscriber: Redis;
  prefix: string;
  /** Safety net for an invalidation lost while Redis was unreachable from the writer (default 60 s). */
  ttlMs?: number;
  onError?: (error: unknown) => void;
};

type Entry = { value: Promise<unknown>; loadedAt: number };

const channelOf = (prefix: string) => `${prefix}:config-invalidate`;

/**
 * A per-process read-through cache with invalidation that is correct across processes:
 * - a change clears the local entry at once and is published on a Redis channel that every
 *   process subscribes to;
 * - every load records the scope's version when it started and is kept only if no invalidation
 *   arrived meanwhile (a load racing a change never caches the old value);
 * - when the subscriber connection (re)connects every entry is dropped, since invalidations may
 *   have been missed while it was down; and entries expire after `ttlMs` regardless.
 */
export class ConfigCache {
  readonly #options: ConfigCacheOptions;
  readonly #entries = new Map<ConfigScope, Entry>();
  readonly #versions = new Map<ConfigScope, number>();
  readonly #channel: string;
  #subscribed: Promise<void> | undefined;
  /** True once the subscription is confirmed: only then may values be cached. */
  #live = false;
  #closed = false;
  /** Loads served from the cache vs loads that went to the database (for tests and /metrics). */
  readonly stats = { hits: 0, loads: 0, invalidations: 0 };

  constructor(options: ConfigCacheOptions) {
    this.#options = options;
    this.#channel = channelOf(options.prefix);
  }

  /** Subscribes to the invalidation channel; until it is subscribed nothing is cached. */
  start(): Promise<void> {
    this.#subscribed ??= (async () => {
      const { subscriber } = this.#options;
      subscriber.on('message', (channel: string, message: string) => {
        if (channel !== this.#channel) return;
        this.dropLocal((message.split(',') as ConfigScope[]).filter(Boolean));
      });
      // Anything published while the connection was down is lost: start over after a reconnect.
      subscriber.on('ready', () => this.dropLocal([...this.#entries.keys()]));
      await subscriber.subscribe(this.#channel);
    })();
    return this.#subscribed;
  }

  /** The cached value of `scope`, loading it once for all concurrent callers. */
  async get<T>(scope: ConfigScope, load: () => Promise<T>): Promise<T> {
    if (!this.#live) {
      // Before the subscription is confirmed a cached value could miss an invalidation.
      if (this.#subscribed && !this.#closed) await this.#subscribed.then(() => (this.#live = true)).catch(() => {});
      if (!this.#live) return load();
    }
    const ttlMs = this.#options.ttlMs ?? 60_000;
    const entry = this.#entries.get(scope);
    if (entry && performance.now() - entry.loadedAt < ttlMs) {
      this.stats.hits++;
      return entry.value as Promise<T>;
    }
    this.stats.loads++;
    const version = this.#versions.get(scope) ?? 0;
    const value = load().then(deepFreeze);
    const created: Entry = { value, loadedAt: performance.now() };
    this.#entries.set(scope, created);
    value.then(
      () => {
        // An invalidation arrived while loading: the value may predate the change.
        if ((this.#versions.get(scope) ?? 0) !== version && this.#entries.get(scope) === created) this.#entries.delete(scope);
      },
      () => {
        if (this.#entries.get(scope) === created) this.#entries.delete(scope);
      },
    );
    return value;
  }

  /** Drops `scopes` here and tells every other process. Call after the change is committed. */
  async invalidate(scopes: ConfigScope[]): Promise<void> {
    this.dropLocal(scopes);
    try {
      await this.#options.publisher.publish(this.#channel, scopes.join(','));
    } catch (error) {
      // Other processes fall back on their TTL; the change itself is committed.
      this.#options.onError?.(error);
    }
  }

  /** Drops `scopes` in this process only. */
  dropLocal(scopes: ConfigScope[]): void {
    for (const scope of scopes) {
      this.#versions.set(scope, (this.#versions.get(scope) ?? 0) + 1);
      this.#entries.delete(scope);
    }
    this.stats.invalidations++;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#entries.clear();
    await this.#options.subscriber.unsubscribe(this.#channel).catch(() => {});
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

// Keyed by the Database object: a transaction (`tx`) or another database never sees this cache.
const attached = new WeakMap<Database, ConfigCache>();

/**
 * Makes the services' loaders for `db` read through `cache` (the API and worker runtimes do this).
 * Without it every loader queries the database, which is what tests and one-off scripts get.
 */
export function attachConfigCache(db: Database, cache: ConfigCache): void {
  attached.set(db, cache);
}

export function detachConfigCache(db: Database): void {
  attached.delete(db);
}

/** The loader's value, from the cache attached to `db` if any. */
export function cachedConfig<T>(db: Database, scope: ConfigScope, load: () => Promise<T>): Promise<T> {
  const cache = attached.get(db);
  return cache ? cache.get(scope, load) : load();
}

/** Forgets this process's copy (not others'); false when no cache is attached. */
export function dropLocalConfig(db: Database, scopes: ConfigScope[] = ['agent-config']): boolean {
  const cache = attached.get(db);
  cache?.dropLocal(scopes);
  return cache !== undefined;
}

/** Call after a committed change to models, agents or tools. */
export async function invalidateConfig(db: Database, scopes: ConfigScope[] = ['agent-config']): Promise<void> {
  await attached.get(db)?.invalidate(scopes);
}

/**
 * Creates, attaches and starts a config cache for `db` unless one is attached already (the
 * all-in-one server runs the API and a worker on one database object). `close` detaches it and
 * leaves the connections to the caller.
 */
export async function startConfigCache(db: Database, options: ConfigCacheOptions): Promise<{ cache: ConfigCache; close: () => Promise<void> }> {
  const existing = attached.get(db);
  if (existing) return { cache: existing, close: async () => {} };
  const cache = new ConfigCache(options);
  attachConfigCache(db, cache);
  await cache.start().catch((error) => options.onError?.(error));
  return {
    cache,
    close: async () => {
      if (attached.get(db) === cache) detachConfigCache(db);
      await cache.close();
    },
  };
}
