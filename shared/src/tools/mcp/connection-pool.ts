import { createHash } from 'node:crypto';
import { connectMcp, type McpConnection, type McpConnectOptions } from './connect-mcp';
import type { McpConfig, McpSecrets } from './mcp-schemas';

/** How long an unused connection stays open: a server whose config changed is never asked again under its old key. */
const DEFAULT_IDLE_MS = 5 * 60_000;

type Entry = { pending: Promise<McpConnection>; inUse: number; lastUsedAt: number };

/**
 * One connection per server (URL or command, credentials, network policy) per process, shared by every
 * run on this worker. A connection whose transport closed is dropped and the next call connects again;
 * one nobody used for `idleMs` is closed (a tool's old config, an MCP server no run calls any more),
 * so a stdio server's process or an HTTP session does not outlive its use.
 */
export class McpConnectionPool {
  readonly #connections = new Map<string, Entry>();
  readonly #idleMs: number;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: { idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** The server's pooled connection, counted as in use until `release`. */
  async get(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): Promise<McpConnection> {
    const key = poolKey(config, secrets, options);
    const existing = this.#connections.get(key);
    if (existing) {
      existing.inUse += 1;
      const connection = await existing.pending.catch(() => null);
      if (connection && !connection.closed) return connection;
      existing.inUse -= 1;
      if (this.#connections.get(key) === existing) this.#connections.delete(key);
    }
    const pending = connectMcp(config, secrets, { ...options, signal: undefined });
    const entry: Entry = { pending, inUse: 1, lastUsedAt: Date.now() };
    this.#connections.set(key, entry);
    this.#startSweeping();
    pending.catch(() => {
      if (this.#connections.get(key) === entry) this.#connections.delete(key);
    });
    return pending;
  }

  /** The caller is done with a connection `get` gave it. */
  async release(connection: McpConnection): Promise<void> {
    const entry = await this.#entryOf(connection);
    if (!entry) return;
    entry.inUse = Math.max(0, entry.inUse - 1);
    entry.lastUsedAt = Date.now();
  }

  /** Forgets (and closes) a connection that failed mid-call, so the next call reconnects. */
  async drop(connection: McpConnection): Promise<void> {
    for (const [key, entry] of this.#connections) {
      if ((await entry.pending.catch(() => null)) === connection) this.#connections.delete(key);
    }
    await connection.close();
  }

  get size(): number {
    return this.#connections.size;
  }

  async closeAll(): Promise<void> {
    const entries = [...this.#connections.values()];
    this.#connections.clear();
    this.#stopSweeping();
    await Promise.allSettled(entries.map(async (entry) => (await entry.pending).close()));
  }

  /** Closes the connections nobody has used for `idleMs`. */
  async closeIdle(now = Date.now()): Promise<void> {
    const idle = [...this.#connections].filter(([, entry]) => entry.inUse === 0 && now - entry.lastUsedAt >= this.#idleMs);
    for (const [key] of idle) this.#connections.delete(key);
    if (this.#connections.size === 0) this.#stopSweeping();
    await Promise.allSettled(idle.map(async ([, entry]) => (await entry.pending).close()));
  }

  async #entryOf(connection: McpConnection): Promise<Entry | undefined> {
    for (const entry of this.#connections.values()) if ((await entry.pending.catch(() => null)) === connection) return entry;
    return undefined;
  }

  #startSweeping(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => void this.closeIdle(), Math.max(10, Math.min(this.#idleMs / 2, 60_000)));
    this.#sweeper.unref();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

function poolKey(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): string {
  const identity = JSON.stringify([config.transport, config.url, config.command, config.args, secrets.headers, secrets.env, options.allowPrivateNetworks]);
  return createHash('sha256').update(identity).digest('hex');
}
