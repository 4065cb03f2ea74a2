import { agentTools, answerFeedback, executeRows, FEEDBACK_RATINGS, RUN_KINDS, RUN_STATUSES, runs, TOOL_LOG_STATUSES, type Database } from '@agentq/shared/db';
import { listWorkerHeartbeats, queueCatalog, type QueueKey, type Queues } from '@agentq/shared/queues';
import { count, sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricValue } from 'prom-client';
import { queueOverview, QUEUE_STATES } from './queue-overview';

const HTTP_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Tool execution buckets, in milliseconds as agent_tool_logs stores them. */
const TOOL_BUCKETS_MS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000];

/**
 * A metric whose samples are computed at scrape time from PostgreSQL or Redis (prom-client's own
 * types only count what this process observed, and tool executions happen in worker processes).
 */
class SnapshotMetric {
  values: MetricValue<string>[] = [];
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
  ) {}

  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values };
  }

  reset() {}
}

type Sources = { db: Database; queues: Queues; redis: Redis };

export type AppMetrics = {
  registry: Registry;
  /** Records one answered HTTP request (route is the matched pattern, never the raw URL). */
  observeRequest: (labels: { method: string; route: string; status: number }, seconds: number) => void;
  /** Counts one refused sign-in: wrong email or password, or throttled after too many of those. */
  observeLoginFailure: (reason: 'invalid_credentials' | 'throttled') => void;
  /** Refreshes the scrape-time metrics and renders the Prometheus text format. */
  render: () => Promise<string>;
};

/**
 * One Prometheus registry per app (never prom-client's global one, so tests can build several
 * apps): HTTP counts and latencies observed here, plus queue, worker, run and tool metrics read
 * from Redis and PostgreSQL at scrape time, so they cover every worker process.
 */
export function createAppMetrics(sources: Sources, options: { processMetrics?: boolean } = {}): AppMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'agentq_http_requests_total',
    help: 'HTTP requests answered by this API process, by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'agentq_http_request_duration_seconds',
    help: 'Time until the response started (for SSE: until the stream opened), by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS_SECONDS,
    registers: [registry],
  });
  const loginFailures = new Counter({
    name: 'agentq_login_failures_total',
    help: 'Refused sign-ins on this API process: invalid_credentials (wrong email or password) or throttled (too many failures)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ['invalid_credentials', 'throttled']) loginFailures.inc({ reason }, 0);
  const queueJobs = new Gauge({
    name: 'agentq_queue_jobs',
    help: 'Jobs per queue and state; state "parked" counts runs awaiting approval (their jobs are delayed), "delayed" the other delayed jobs',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
  });
  const queueWorkers = new Gauge({
    name: 'agentq_queue_workers',
    help: 'BullMQ worker connections per queue (from Redis CLIENT LIST)',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const jobsProcessed = new SnapshotMetric('agentq_queue_jobs_processed_total', 'Jobs finished per queue and result since BullMQ metrics began', 'counter');
  const workersOnline = new Gauge({ name: 'agentq_workers_online', help: 'Worker processes with a recent heartbeat', registers: [registry] });
  const runGauge = new Gauge({
    name: 'agentq_runs',
    help: 'Runs in PostgreSQL by kind and status',
    labelNames: ['kind', 'status'] as const,
    registers: [registry],
  });
  const answerRatings = new Gauge({
    name: 'agentq_answer_ratings',
    help: "Answers users rated (answer_feedback), by rating: a rising share of 'down' is worth a look at Admin → Feedback",
    labelNames: ['rating'] as const,
    registers: [registry],
  });
  const toolExecutions = new SnapshotMetric('agentq_tool_executions_total', 'Tool executions (agent_tool_logs) by tool type and status', 'counter');
  const toolDuration = new SnapshotMetric('agentq_tool_execution_duration_seconds', 'Tool execution time (agent_tool_logs) by tool type and status', 'histogram');
  const collectorUp = new Gauge({
    name: 'agentq_metrics_collector_up',
    help: '1 when the last scrape could read this source, 0 when it failed (the other metrics keep their last values)',
    labelNames: ['collector'] as const,
    registers: [registry],
  });
  for (const metric of [jobsProcessed, toolExecutions, toolDuration]) registry.registerMetric(metric as never);

  const collectors: Record<string, () => Promise<void>> = {
    queues: async () => {
      const summaries = await queueOverview(sources.db, sources.queues);
      queueJobs.reset();
      for (const summary of summaries) for (const state of QUEUE_STATES) queueJobs.set({ queue: summary.name, state }, summary.counts[state]);
      const perQueue = await Promise.all(
        (Object.keys(queueCatalog) as QueueKey[]).map(async (key) => {
          const queue = sources.queues[key];
          const [workers, completed, failed] = await Promise.all([queue.getWorkersCount(), queue.getMetrics('completed', 0, 0), queue.getMetrics('failed', 0, 0)]);
          return { name: queue.name, workers, completed: completed.meta.count, failed: failed.meta.count };
        }),
      );
      queueWorkers.reset();
      for (const entry of perQueue) queueWorkers.set({ queue: entry.name }, entry.workers);
      jobsProcessed.values = perQueue.flatMap((entry) => [
        { labels: { queue: entry.name, result: 'completed' }, value: entry.completed },
        { labels: { queue: entry.name, result: 'failed' }, value: entry.failed },
      ]);
    },
    workers: async () => {
      workersOnline.set((await listWorkerHeartbeats(sources.redis, sources.queues.prefix)).length);
    },
    runs: async () => {
      const rows = await sources.db.select({ kind: runs.kind, status: runs.status, value: count() }).from(runs).groupBy(runs.kind, runs.status);
      runGauge.reset();
      // Every combination, so a status with no runs reads 0 instead of vanishing.
      for (const kind of RUN_KINDS) for (const status of RUN_STATUSES) runGauge.set({ kind, status }, 0);
      for (const row of rows) runGauge.set({ kind: row.kind, status: row.status }, row.value);
    },
    feedback: async () => {
      const rows = await sources.db.select({ rating: answerFeedback.rating, value: count() }).from(answerFeedback).groupBy(answerFeedback.rating);
      for (const rating of FEEDBACK_RATINGS) answerRatings.set({ rating }, rows.find((row) => row.rating === rating)?.value ?? 0);
    },
    tool_executions: async () => {
      const bucketColumns = TOOL_BUCKETS_MS.map((limit) => sql`count(*) filter (where l.duration_ms <= ${sql.raw(String(limit))})::int`);
      const rows = await executeRows<{ type: string; status: string; count: number; sum_ms: string | number; buckets: number[] }>(sources.db, sql`
        select coalesce(t.type, 'unknown') as type, l.status as status, count(*)::int as count, coalesce(sum(l.duration_ms), 0)::bigint as sum_ms,
          array[${sql.join(bucketColumns, sql`, `)}] as buckets
        from agent_tool_logs l left join ${agentTools} t on t.id = l.tool_id
        group by 1, 2`);
      const byKey = new Map(rows.map((row) => [`${row.type}\u0000${row.status}`, row]));
      const types = new Set([...rows.map((row) => row.type)]);
      const executions: MetricValue<string>[] = [];
      const durations: MetricValue<string>[] = [];
      for (const type of types) {
        for (const status of TOOL_LOG_STATUSES) {
          const row = byKey.get(`${type}\u0000${status}`);
          const labels = { type, status };
          executions.push({ labels, value: row?.count ?? 0 });
          if (!row) continue;
          TOOL_BUCKETS_MS.forEach((limit, index) => {
            durations.push({ metricName: `${toolDuration.name}_bucket`, labels: { ...labels, le: limit / 1000 }, value: Number(row.buckets[index] ?? 0) } as MetricValue<string>);
          });
          durations.push({ metricName: `${toolDuration.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: row.count } as MetricValue<string>);
          durations.push({ metricName: `${toolDuration.name}_sum`, labels, value: Number(row.sum_ms) / 1000 } as MetricValue<string>);
          durations.push({ metricName: `${toolDuration.name}_count`, labels, value: row.count } as MetricValue<string>);
        }
      }
      toolExecutions.values = executions;
      toolDuration.values = durations;
    },
  };

  async function collect() {
    await Promise.all(
      Object.entries(collectors).map(async ([collector, run]) => {
        try {
          await run();
          collectorUp.set({ collector }, 1);
        } catch {
          collectorUp.set({ collector }, 0);
        }
      }),
    );
  }

  let scrape: Promise<string> | undefined;
  return {
    registry,
    observeRequest: (labels, seconds) => {
      const values = { method: labels.method, route: labels.route, status: String(labels.status) };
      httpRequests.inc(values);
      httpDuration.observe(values, seconds);
    },
    observeLoginFailure: (reason) => loginFailures.inc({ reason }),
    // Concurrent scrapes share one collection instead of racing on reset() and set().
    render: () => {
      scrape ??= collect()
        .then(() => registry.metrics())
        .finally(() => {
          scrape = undefined;
        });
      return scrape;
    },
  };
}
