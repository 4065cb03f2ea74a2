import { z } from 'zod';
import { defineQueue } from './define-queue';

const runPayload = z.object({ runId: z.string().min(1) });

const keepForAudit = {
  removeOnComplete: { age: 24 * 3600, count: 5000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
};

/**
 * A session's first question as its API stored it: everything the run's first model call needs, so
 * the worker sends that call beside its claim instead of after it (processChatTurn). Any other
 * question's history is in the database, and a large one is read from there too (OPENING_MAX_CHARS).
 */
export const chatRunOpening = z.object({
  userId: z.string().min(1),
  sessionId: z.string().min(1),
  agentId: z.string().nullable(),
  modelId: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  questionId: z.string().min(1),
  question: z.string(),
});
export type ChatRunOpening = z.infer<typeof chatRunOpening>;

/** One chat turn: the tool loop for one run. Retries resume from the run's checkpoint. */
export const chatTurns = defineQueue({
  name: 'chat-turns',
  jobs: { 'chat-turn': runPayload.extend({ opening: chatRunOpening.optional() }) },
  defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, ...keepForAudit },
});

/** One standalone tool execution (POST /api/agent-tools/:id/execute). */
export const toolExecutions = defineQueue({
  name: 'tool-executions',
  // The tool, when the API names it: a type whose calls never have an effect runs without a claim.
  // A draft is the run the API did not store (ToolRunDraft): the worker writes it with its end.
  jobs: {
    'tool-exec': runPayload.extend({
      toolId: z.string().min(1).optional(),
      draft: z.object({ userId: z.string().min(1), options: z.record(z.string(), z.unknown()), createdAt: z.iso.datetime() }).optional(),
    }),
  },
  // POST /api/agent-tools/:id/execute waits for the result.
  deliversResult: true,
  defaultJobOptions: { attempts: 2, backoff: { type: 'exponential', delay: 1000 }, ...keepForAudit },
});

/**
 * One fire of a user's schedule (shared/src/services/schedules.ts): added by the schedule's BullMQ Job
 * Scheduler (id = the schedule's id), whose fires each get a job id of their own; the processor uses
 * it as the run's idempotency key, so a retried fire starts no second run.
 */
export const scheduleFires = defineQueue({
  name: 'schedule-fires',
  jobs: { 'schedule-fire': z.object({ scheduleId: z.string().min(1) }) },
  defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, ...keepForAudit },
});

/** A webhook event as its JSON body carries it (services/webhooks/events.ts builds them). */
export const webhookEvent = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  createdAt: z.iso.datetime(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.infer<typeof webhookEvent>;

/**
 * One event to one user's webhook endpoint (services/webhooks): the job id is the delivery's id, so
 * an event enqueued twice (a retried run end) is delivered once. Each attempt is one POST; a network
 * error or a non-2xx answer is retried with exponential backoff (2, 4, 8, 16 s). `manual`: a test
 * event or a redelivery a user asked for, sent even to a disabled endpoint and not counted towards
 * its automatic disable.
 */
export const webhookDeliveries = defineQueue({
  name: 'webhook-deliveries',
  jobs: {
    'webhook-delivery': z.object({ deliveryId: z.string().min(1), endpointId: z.string().min(1), event: webhookEvent, manual: z.boolean().optional() }),
  },
  defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, ...keepForAudit },
});

/**
 * One uploaded knowledge-base file (or web page, fetched first) to read, chunk and embed (services/knowledge/ingest.ts): the job id
 * is the file's id, so an upload enqueued twice is processed once. Only an embedding call that failed
 * is retried (2, 4 s); a file without text is marked failed at once.
 */
export const knowledgeIngestions = defineQueue({
  name: 'knowledge-ingestions',
  // `refetch`: a web page's file fetches its page again ("Fetch again"); one never fetched (or whose fetch failed) always does.
  jobs: { 'knowledge-ingestion': z.object({ fileId: z.string().min(1), refetch: z.boolean().optional() }) },
  defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2000 }, ...keepForAudit },
});

/**
 * One account email (services/email/account-emails.ts): a "Forgot password?" link or a sign-up's
 * verification link, to the account of `email` if it may have one. The job carries no secret: the
 * worker makes the link's secret as it sends. An SMTP failure is retried (5, 10, 20 s); the address
 * is personal data, so finished jobs are kept an hour and failed ones a day.
 */
export const accountEmails = defineQueue({
  name: 'account-emails',
  jobs: { 'account-email': z.object({ purpose: z.enum(['password-reset', 'email-verification']), email: z.string().min(3).max(320) }) },
  defaultJobOptions: { attempts: 4, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
});

/** Every queue the worker serves; adding one here makes a missing processor a compile error. */
export const queueCatalog = { chatTurns, toolExecutions, scheduleFires, webhookDeliveries, knowledgeIngestions, accountEmails } as const;

/** The queue and job that run each kind of run (under the run's id), so nothing branches on the kind. */
export const RUN_KIND_JOBS = {
  chat: { queue: 'chatTurns', job: 'chat-turn' },
  tool: { queue: 'toolExecutions', job: 'tool-exec' },
} as const satisfies Record<'chat' | 'tool', { queue: keyof typeof queueCatalog; job: string }>;
export type RunKind = keyof typeof RUN_KIND_JOBS;

export type QueueCatalog = typeof queueCatalog;
export type QueueKey = keyof QueueCatalog;
export type JobName<Q extends QueueKey> = keyof QueueCatalog[Q]['jobs'] & string;
export type JobPayload<Q extends QueueKey, J extends JobName<Q>> = z.infer<QueueCatalog[Q]['jobs'][J]>;

export type RunJob = (typeof RUN_KIND_JOBS)[RunKind];
