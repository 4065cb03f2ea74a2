import { runs, type Database } from '@agentq/shared/db';
import { queueCatalog, type QueueKey, type Queues } from '@agentq/shared/queues';
import { count, eq } from 'drizzle-orm';

/** Which run kind each queue's jobs belong to (a job id is its run id); schedule fires and webhook deliveries are no run's and never park. */
const RUN_KIND_OF_QUEUE = { chatTurns: 'chat', toolExecutions: 'tool', scheduleFires: null, webhookDeliveries: null, knowledgeIngestions: null, accountEmails: null } as const satisfies { [K in QueueKey]: 'chat' | 'tool' | null };

/** Job states as operators read them; together they partition a queue's jobs. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'parked', 'failed', 'completed', 'prioritized', 'waiting-children'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export type QueueSummary = {
  key: QueueKey;
  name: string;
  /** A paused queue keeps its jobs waiting; workers take none. */
  isPaused: boolean;
  /**
   * `parked`: runs waiting for a human's approval (their jobs sit in BullMQ's delayed set, holding
   * no worker slot); `delayed` is the rest of the delayed set (retry backoff).
   */
  counts: Record<QueueState, number>;
};

/** Every catalog queue's job counts, with the jobs parked for approval told apart from other delayed jobs. */
export async function queueOverview(db: Database, queues: Queues): Promise<QueueSummary[]> {
  const parkedRows = await db
    .select({ kind: runs.kind, value: count() })
    .from(runs)
    .where(eq(runs.status, 'awaiting_approval'))
    .groupBy(runs.kind);
  const parkedByKind = new Map(parkedRows.map((row) => [row.kind, row.value]));
  return Promise.all(
    (Object.keys(queueCatalog) as QueueKey[]).map(async (key) => {
      const queue = queues[key];
      const [raw, isPaused] = await Promise.all([
        queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'waiting-children'),
        queue.isPaused(),
      ]);
      const kind = RUN_KIND_OF_QUEUE[key];
      const parked = (kind && parkedByKind.get(kind)) ?? 0;
      const delayed = raw.delayed ?? 0;
      return {
        key,
        name: queue.name,
        isPaused,
        counts: {
          waiting: raw.waiting ?? 0,
          active: raw.active ?? 0,
          // A run is marked awaiting_approval a moment before its job is delayed: never count below zero.
          delayed: Math.max(0, delayed - parked),
          parked,
          failed: raw.failed ?? 0,
          completed: raw.completed ?? 0,
          prioritized: raw.prioritized ?? 0,
          'waiting-children': raw['waiting-children'] ?? 0,
        },
      };
    }),
  );
}
