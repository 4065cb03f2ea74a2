/**
 * The thread side of a ThreadPool (thread-pool.ts): answers each `{ id, input }` message with
 * `{ id, value }`, or `{ id, error }` when the handler throws.
 *
 * Imported by thread modules that Node loads directly (type stripping): erasable TypeScript only,
 * and imports with their `.ts` extension.
 */
import { parentPort } from 'node:worker_threads';

export function serveThreadTasks<In, Out>(handler: (input: In) => Out | Promise<Out>): void {
  parentPort?.on('message', async (message: { id: number; input: In }) => {
    try {
      parentPort?.postMessage({ id: message.id, value: await handler(message.input) });
    } catch (error) {
      parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
