import type { Redis } from 'ioredis';
import type { Database } from '../db/client';

/**
 * What rarely changes and is read all the time, each scope dropped whole on any change to it, so
 * there is no cascade to get wrong:
 * - `agent-config`: models, agents (with their tool associations and the groups that may use them)
 *   and tool instances, one snapshot (deleting a model clears agents' model, deleting a tool their
 *   associations). Admins edit them; runs read them several times each.
 * - `auth`: the user behind each session cookie, with the ids of their groups, keyed by the token's
 *   hash. Every request reads it; a sign-out, a revocation or any change to a user or to a group's
 *   members drops them all.
 * - `webhooks`: who has an enabled webhook endpoint for which events, one snapshot; every run's end
 *   reads it, so a user without webhooks costs the run no query.
 * - `usage-limits`: the default token limits and every user's override, one snapshot; every send
 *   reads it, so without limits a send costs no query and no Redis call (services/usage-limits).
 * - `banners`: the enabled announcement banners, one snapshot (their windows are checked on read);
 *   every page load reads it, so a user who has nothing to dismiss costs no query (services/banners).
 */
export type ConfigScope = 'agent-config' | 'auth' | 'webhooks' | 'usage-limits' | 'banners';

/** How long an entry may serve without a reload, whatever invalidations say (the safety net). */
const TTL_MS: Record<ConfigScope, number> = { 'agent-config': 60_000, auth: 15_000, webhooks: 60_000, 'usage-limits': 60_000, banners: 60_000 };
/** Keyed scopes hold at most this many entries; the oldest go first. */
const MAX_KEYS = 10_000;
/** How often an invalidation that could not be published is tried again (until every copy it targets has expired). */
const REPUBLISH_MS = 250;

export type ConfigCacheOptions = {
  /** Publishes invalidations (a normal command connection). */
  publisher: Redis;
  /** A connection this cache puts into subscriber mode; not shared with other commands. */
  subscriber: Redis;
  prefix: string;
  /** Safety net for an invalidation lost while Redis was unreachable from the writer (default per scope: 60 s, auth 15 s). */
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
 * - while the subscriber connection is down nothing is served from memory (invalidations would be
 *   missed), and when it comes back every entry is dropped; entries expire after `ttlMs` regardless.
 */
export class ConfigCache {
  readonly #options: ConfigCacheOptions;
  /** Per scope, its entries by key ('' for a scope cached as one value). */
  readonly #entries = new Map<ConfigScope, Map<string, Entry>>();
  readonly #versions = new Map<ConfigScope, number>();
  readonly #channel: string;
  #subscribed: Promise<void> | undefined;
  /** True once the subscription is confirmed: only then may values be cached. */
  #live = false;
  /** The subscriber connection is up (it can hear invalidations). */
  #connected = false;
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
      // Anything published while the connection is down is lost: serve nothing from memory until it
      // is back, then start over.
      subscriber.on('close', () => {
        this.#connected = false;
        this.dropLocal([...this.#entries.keys()]);
      });
      subscriber.on('ready', () => {
        this.dropLocal([...this.#entries.keys()]);
        this.#connected = true;
      });
      await subscriber.subscribe(this.#channel);
      this.#connected = subscriber.status === 'ready';
    })();
    return this.#subscribed;
  }

  /** The cached value of `scope` (of its entry `key`), loading it once for all concurrent callers. */
  async get<T>(scope: ConfigScope, load: () => Promise<T>, key = ''): Promise<T> {
    if (!this.#live) {
      // Before the subscription is confirmed a cached value could miss an invalidation.
      if (this.#subscribed && !this.#closed) await this.#subscribed.then(() => (this.#live = true)).catch(() => {});
      if (!this.#live) return load();
    }
    if (!this.#connected) return load();
    const ttlMs = this.#options.ttlMs ?? TTL_MS[scope];
    let entries = this.#entries.get(scope);
    if (!entries) this.#entries.set(scope, (entries = new Map()));
    const entry = entries.get(key);
    if (entry && performance.now() - entry.loadedAt < ttlMs) {
      this.stats.hits++;
      return entry.value as Promise<T>;
    }
    this.stats.loads++;
    const version = this.#versions.get(scope) ?? 0;
    const value = load().then(deepFreeze);
    const created: Entry = { value, loadedAt: performance.now() };
    entries.delete(key);
    entries.set(key, created);
    if (entries.size > MAX_KEYS) entries.delete(entries.keys().next().value!);
    const current = () => this.#entries.get(scope)?.get(key) === created;
    value.then(
      () => {
        // An invalidation arrived while loading: the value may predate the change.
        if ((this.#versions.get(scope) ?? 0) !== version && current()) this.#entries.get(scope)!.delete(key);
      },
      () => {
        if (current()) this.#entries.get(scope)!.delete(key);
      },
    );
    return value;
  }

  /** Forgets one entry here (a value not worth keeping, such as an unknown or expired session). */
  forget(scope: ConfigScope, key = ''): void {
    this.#entries.get(scope)?.delete(key);
  }

  /** Drops `scopes` here and tells every other process. Call after the change is committed. */
  async invalidate(scopes: ConfigScope[]): Promise<void> {
    this.dropLocal(scopes);
    try {
      await this.#options.publisher.publish(this.#channel, scopes.join(','));
    } catch (error) {
      // The change itself is committed. Other processes still hearing Redis would keep their copies
      // until the TTL: keep trying, so they drop them as soon as this process reaches Redis again.
      this.#options.onError?.(error);
      const until = performance.now() + Math.max(...scopes.map((scope) => this.#options.ttlMs ?? TTL_MS[scope]));
      this.#republish(scopes.join(','), until);
    }
  }

  #republish(message: string, until: number): void {
    const timer = setTimeout(() => {
      if (this.#closed || performance.now() > until) return;
      this.#options.publisher.publish(this.#channel, message).catch(() => this.#republish(message, until));
    }, REPUBLISH_MS);
    timer.unref();
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

/** The loader's value (of entry `key` of a keyed scope), from the cache attached to `db` if any. */
export function cachedConfig<T>(db: Database, scope: ConfigScope, load: () => Promise<T>, key?: string): Promise<T> {
  const cache = attached.get(db);
  return cache ? cache.get(scope, load, key) : load();
}

/** Forgets one entry in this process's copy. */
export function forgetCachedConfig(db: Database, scope: ConfigScope, key?: string): void {
  attached.get(db)?.forget(scope, key);
}

/** Forgets this process's copy (not others'); false when no cache is attached. */
export function dropLocalConfig(db: Database, scopes: ConfigScope[] = ['agent-config']): boolean {
  const cache = attached.get(db);
  cache?.dropLocal(scopes);
  return cache !== undefined;
}

/** Call after a committed change to models, agents or tools (the default scope), or to users and sessions (`auth`). */
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
