import type { Socket } from 'node:net';
import type { Cluster, Redis } from 'ioredis';

type CoalescedSocket = Socket & { agentqCoalesced?: true };

/**
 * Sends every command a connection is given in one turn of the event loop in one socket write.
 * ioredis writes each command on its own; here the socket is corked at a turn's first write and
 * uncorked on the next tick, once the turn's promise chains have run, so the turn's commands
 * leave in one `writev`. On a loopback socket each write also wakes the server, so a worker
 * finishing several jobs at once (BullMQ's completions, the runs' event flushes) wakes Redis
 * once (docs/benchmarks.md, change 72). ioredis's auto-pipelining coalesces too, but builds a
 * Pipeline per turn that copies every command defined on the connection (BullMQ's ~50 scripts).
 * Order and replies are unchanged: commands still go out in the order they were sent, on the
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
    let corked = false;
    const uncork = () => {
      corked = false;
      socket.uncork();
    };
    socket.write = function coalescedWrite(this: CoalescedSocket, ...args: Parameters<Socket['write']>) {
      if (!corked) {
        corked = true;
        this.cork();
        process.nextTick(uncork);
      }
      return write.apply(this, args as never);
    } as Socket['write'];
  };
  // ioredis makes a new socket per (re)connection and writes its handshake on 'connect'.
  redis.on('connect', corkCurrentSocket);
  corkCurrentSocket();
  return connection;
}
