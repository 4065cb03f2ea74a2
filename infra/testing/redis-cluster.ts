import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../scripts/redis-child';

export type ClusterNode = { port: number; child: ChildProcess };

export type LocalRedisCluster = {
  /** Seed list for REDIS_CLUSTER_NODES. */
  nodes: string;
  members: ClusterNode[];
  /** Port of the master serving `key`'s slot right now. */
  masterFor: (key: string) => Promise<number>;
  /** Kills a node with SIGKILL (a crashed master); its replica takes over after the node timeout. */
  kill: (port: number) => Promise<void>;
  /** Resolves when every live node reports cluster_state:ok and `key`'s slot is served by a master other than `notPort`. */
  waitForFailover: (key: string, notPort: number, timeoutMs?: number) => Promise<number>;
  stop: () => Promise<void>;
};

const NODE_TIMEOUT_MS = 1500;

/** One node's CLUSTER commands over a short-lived connection. */
async function withNode<T>(port: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * A Redis Cluster of `masters` masters with one replica each, from this machine's redis-server,
 * on free loopback ports (`--cluster-enabled yes` + `redis-cli --cluster create`). No persistence.
 */
export async function startRedisCluster(options: { masters?: number } = {}): Promise<LocalRedisCluster> {
  const count = (options.masters ?? 3) * 2;
  const dir = mkdtempSync(join(tmpdir(), 'agentq-cluster-'));
  const members: ClusterNode[] = [];
  for (let index = 0; index < count; index++) {
    const port = await freePort();
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir);
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--appendonly', 'no', '--save', '', '--maxmemory-policy', 'noeviction'],
      { stdio: 'ignore' },
    );
    members.push({ port, child });
  }
  for (const member of members) {
    for (let attempt = 0; ; attempt++) {
      try {
        await withNode(member.port, (redis) => redis.ping());
        break;
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...members.map((member) => `127.0.0.1:${member.port}`), '--cluster-replicas', '1', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 });
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  const alive = () => members.filter((member) => member.child.exitCode === null && member.child.signalCode === null);
  const clusterOk = async () => {
    for (const member of alive()) {
      const info = await withNode(member.port, (redis) => redis.cluster('INFO') as Promise<string>);
      if (!info.includes('cluster_state:ok')) return false;
    }
    return true;
  };
  await waitFor(clusterOk, 30_000, 'cluster_state:ok');

  const masterFor = async (key: string) => {
    const member = alive()[0]!;
    return withNode(member.port, async (redis) => {
      const slot = (await redis.cluster('KEYSLOT', key)) as number;
      const ranges = (await redis.cluster('SLOTS')) as [number, number, [string, number, string]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`slot ${slot} is not served`);
      return range[2][1];
    });
  };

  return {
    nodes: members.map((member) => `127.0.0.1:${member.port}`).join(','),
    members,
    masterFor,
    kill: async (port) => {
      const member = members.find((candidate) => candidate.port === port);
      if (!member || member.child.exitCode !== null) return;
      const exited = new Promise((resolve) => member.child.once('exit', resolve));
      member.child.kill('SIGKILL');
      await exited;
    },
    waitForFailover: async (key, notPort, timeoutMs = 30_000) => {
      let master = notPort;
      await waitFor(
        async () => {
          master = await masterFor(key).catch(() => notPort);
          return master !== notPort && (await clusterOk().catch(() => false));
        },
        timeoutMs,
        `a replica promoted for ${key}`,
      );
      return master;
    },
    stop: async () => {
      await Promise.all(
        members.map(
          (member) =>
            new Promise<void>((resolve) => {
              if (member.child.exitCode !== null || member.child.signalCode !== null) return resolve();
              member.child.once('exit', () => resolve());
              member.child.kill('SIGKILL');
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
