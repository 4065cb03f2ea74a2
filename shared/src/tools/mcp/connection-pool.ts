import { createHash } from 'node:crypto';
import { connectMcp, type McpConnection, type McpConnectOptions } from './connect-mcp';
import type { McpConfig, McpSecrets } from './mcp-schemas';

/**
 * One connection per server (URL or command, credentials, network policy) per process, shared by every
 * run on this worker. A connection whose transport closed is dropped and the next call connects again.
 */
export class McpConnectionPool {
  readonly #connections = new Map<string, Promise<McpConnection>>();

  async get(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): Promise<McpConnection> {
    const key = poolKey(config, secrets, options);
    const existing = this.#connections.get(key);
    if (existing) {
      const connection = await existing.catch(() => null);
      if (connection && !connection.closed) return connection;
      if (this.#connections.get(key) === existing) this.#connections.delete(key);
    }
    const pending = connectMcp(config, secrets, { ...options, signal: undefined });
    this.#connections.set(key, pending);
    pending.catch(() => {
      if (this.#connections.get(key) === pending) this.#connections.delete(key);
    });
    return pending;
  }

  /** Forgets (and closes) a connection that failed mid-call, so the next call reconnects. */
  async drop(connection: McpConnection): Promise<void> {
    for (const [key, pending] of this.#connections) {
      if ((await pending.catch(() => null)) === connection) this.#connections.delete(key);
    }
    await connection.close();
  }

  get size(): number {
    return this.#connections.size;
  }

  async closeAll(): Promise<void> {
    const pending = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.allSettled(pending.map(async (connection) => (await connection).close()));
  }
}

function poolKey(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): string {
  const identity = JSON.stringify([config.transport, config.url, config.command, config.args, secrets.headers, secrets.env, options.allowPrivateNetworks]);
  return createHash('sha256').update(identity).digest('hex');
}
