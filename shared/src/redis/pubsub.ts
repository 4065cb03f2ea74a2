import type { Redis } from 'ioredis';

export type ChannelCommands = {
  publish: 'publish' | 'spublish';
  subscribe: 'subscribe' | 'ssubscribe';
  unsubscribe: 'unsubscribe' | 'sunsubscribe';
  message: 'message' | 'smessage';
};

const classic: ChannelCommands = { publish: 'publish', subscribe: 'subscribe', unsubscribe: 'unsubscribe', message: 'message' };
const sharded: ChannelCommands = { publish: 'spublish', subscribe: 'ssubscribe', unsubscribe: 'sunsubscribe', message: 'smessage' };

/**
 * Commands for per-run channels. On a Redis Cluster they are sharded (SPUBLISH/SSUBSCRIBE): a
 * run's channel hashes to its stream's slot, so a message goes to that shard only instead of
 * being broadcast over the cluster bus, and the XADD + SPUBLISH pipeline stays in one slot (one
 * MOVED/CLUSTERDOWN for all of it, which ioredis retries). Classic pub/sub on a single server.
 */
export function runChannelCommands(redis: Redis): ChannelCommands {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true ? sharded : classic;
}
