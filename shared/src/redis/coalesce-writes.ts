import type { Socket } from 'node:net';
import type { Cluster, Redis } from 'ioredis';

type CoalescedSocket = Socket & { agentqCoalesced?: true };

/**
 * Sends the commands a connection is given in one pass of the event loop in one socket write.
 * ioredis writes each command on its own; here the socket is corked at the first write and
 * uncorked on setImmediate, after the pass's timers and I/O callbacks have run (a process.nextTick
 * would uncork after each callback: every run's flush timer is its own, and they fire in one
 * pass), so those commands leave in one `writev`. On a loopback socket each write also wakes the
 * server, so a worker whose runs flush on the same tick, or whose jobs finish together, wakes
 * Redis once (docs/benchmarks.md, change 72). ioredis's auto-pipelining batches the same way but
 * builds a Pipeline per batch that copies every command defined on the connection (BullMQ's ~50
 * scripts). Order and replies are unchanged: commands go out in the order they were sent, on the
 * same socket. A reconnect's new socket is corked the same way; a Cluster's node connections too.
 */
export function coalesceWrites<Connection extends Redis | Cluster>(connection: Connection): Connection {
  if ((connection as unknown as { isCluster?: boolean }).isCluster) {
    const cluster = connection as Cluster;
    cluster.on('+node', (node: Redis) => coalesceWrites(node));
    for (const node of cluster.nodes()) coalesceWrites(node);
    return connection;
  }
  const redis = connection as Redis;
  const corkCurrentSocket = () => {
    const socket = (redis as unknown as { stream?: CoalescedSocket }).stream;
    if (!socket || socket.agentqCoalesced) return;
    socket.agentqCoalesced = true;
    const write = socket.write;
    const uncork = () => socket.uncork();
    socket.write = function coalescedWrite(this: CoalescedSocket, ...args: Parameters<Socket['write']>) {
      if (!this.writableCorked) {
        this.cork();
        setImmediate(uncork);
      }
      return write.apply(this, args as never);
    } as Socket['write'];
  };
  // ioredis makes a new socket per (re)connection and writes its handshake on 'connect'.
  redis.on('connect', corkCurrentSocket);
  corkCurrentSocket();
  return connection;
}
