import { z } from 'zod';

/**
 * Where Redis is, as one string every factory understands: a `redis://` / `rediss://` URL for a
 * single server, or `redis-cluster://host:port,host:port` (built from REDIS_CLUSTER_NODES) for a
 * Redis Cluster. Passing one string keeps every `redisUrl` parameter unchanged.
 */
export type RedisTarget = string;

const CLUSTER_SCHEME = 'redis-cluster://';

export type ClusterTarget = { nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean };

const nodeSchema = z.string().regex(/^(rediss?:\/\/([^@/]*@)?)?[^\s:/@,]+:\d{1,5}$/, 'expected host:port or redis://[user:pass@]host:port');

/** `REDIS_CLUSTER_NODES` (comma-separated seed nodes) or `REDIS_URL`, as a target; undefined when neither is set. */
export function redisTargetFromEnv(env: { REDIS_URL?: string; REDIS_CLUSTER_NODES?: string }): RedisTarget | undefined {
  if (env.REDIS_CLUSTER_NODES) return `${CLUSTER_SCHEME}${env.REDIS_CLUSTER_NODES}`;
  return env.REDIS_URL;
}

export function isClusterTarget(target: RedisTarget): boolean {
  return target.startsWith(CLUSTER_SCHEME);
}

/** Seed nodes and credentials of a cluster target (credentials from the first node that has them). */
export function parseClusterTarget(target: RedisTarget): ClusterTarget {
  const seeds = target.slice(CLUSTER_SCHEME.length).split(',').map((node) => node.trim()).filter(Boolean);
  const parsed: ClusterTarget = { nodes: [], tls: false };
  for (const seed of seeds) {
    nodeSchema.parse(seed);
    const url = new URL(seed.includes('://') ? seed : `redis://${seed}`);
    parsed.nodes.push({ host: url.hostname, port: Number(url.port) });
    if (url.protocol === 'rediss:') parsed.tls = true;
    if (url.password && parsed.password === undefined) {
      parsed.password = decodeURIComponent(url.password);
      if (url.username) parsed.username = decodeURIComponent(url.username);
    }
  }
  if (parsed.nodes.length === 0) throw new Error('REDIS_CLUSTER_NODES lists no node');
  return parsed;
}

/** Validates REDIS_CLUSTER_NODES in the env schema. */
export const clusterNodesSchema = z
  .string()
  .refine((value) => value.split(',').map((node) => node.trim()).filter(Boolean).every((node) => nodeSchema.safeParse(node).success), {
    message: 'REDIS_CLUSTER_NODES must be comma-separated host:port (or redis://[user:pass@]host:port) seed nodes',
  });
