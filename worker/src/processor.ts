import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import type { EmailSender } from '@agentq/shared/services';
import type { JobName, JobPayload, QueueKey, Queues } from '@agentq/shared/queues';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunControl } from './agent/run-control';

/** What every processor receives besides its job. */
export type WorkerDeps = {
  db: Database;
  /** Blocking-safe connection (maxRetriesPerRequest: null) for BullMQ and pub/sub publishing. */
  redis: Redis;
  queues: Queues;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** Cancel signals for the runs this process holds. */
  control: RunControl;
  /** SMTP_* (services/email): sends account emails; absent when no SMTP server is configured. */
  email?: EmailSender;
  config: {
    /** Queue and run-stream key prefix. */
    prefix: string;
    /** Decrypts model API keys. */
    appSecret: string;
    /** How long an approval waits when neither the tool nor the agent sets a timeout. */
    approvalTimeoutMs: number;
    /** MODEL_STALL_TIMEOUT_MS: a model call that sends nothing this long fails the run (default 5 minutes). */
    modelStallTimeoutMs?: number;
    /** How long a chat's model may take to name the chat (default DEFAULT_CHAT_TITLE_TIMEOUT_MS, 10 s). */
    chatTitleTimeoutMs?: number;
    /** How long a model may take to suggest follow-up questions (default DEFAULT_FOLLOW_UPS_TIMEOUT_MS, 10 s). */
    followUpsTimeoutMs?: number;
    /** MCP_STDIO_COMMANDS: local commands an MCP tool may start. */
    mcpStdioCommands?: string[];
  };
};

export type Processor<Q extends QueueKey> = {
  [J in JobName<Q>]: (job: Job<JobPayload<Q, J>>, deps: WorkerDeps, token: string | undefined) => Promise<unknown>;
};

/** One processor per job of every catalog queue: a missing entry fails to compile. */
export type ProcessorMap = { [Q in QueueKey]: Processor<Q> };
