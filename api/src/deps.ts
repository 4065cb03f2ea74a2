import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import type { Queues } from '@agentq/shared/queues';
import type { Redis } from 'ioredis';

/** Everything the app needs from outside; only entry files build these. */
export type AppDeps = {
  db: Database;
  /** Fail-fast connection for request handlers. */
  redis: Redis;
  queues: Queues;
  logger: Logger;
  config: {
    /** Cookies get `Secure` when served over https. */
    secureCookies: boolean;
    /** Largest accepted request body, in bytes. */
    bodyLimitBytes: number;
  };
};

export type AuthUser = { id: string; email: string; name: string; role: 'admin' | 'user' };

export type AppEnv = {
  Variables: AppDeps & { user: AuthUser | null; requestId: string };
};
