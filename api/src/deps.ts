import type { BlockList } from 'node:net';
import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import type { JobWaiter, Queues } from '@agentq/shared/queues';
import type { RunEventHub } from '@agentq/shared/run-stream';
import type { OidcProvider } from '@agentq/shared/services';
import type { Redis } from 'ioredis';
import type { SessionActivity } from './middleware/session-activity';
import type { AppMetrics } from './operations/metrics';
import type { CreatedRuns } from './routes/created-runs';
import type { LoginThrottleOptions } from './security/login-throttle';
import type { RateLimit } from './security/rate-limit';

/** Everything the app needs from outside; only entry files build these. */
export type AppDeps = {
  db: Database;
  /** Fail-fast connection for request handlers. */
  redis: Redis;
  queues: Queues;
  /** Waits for a job's result (synchronous tool execution). */
  jobs: JobWaiter;
  /** Live run events fanned out to SSE connections from one pub/sub connection. */
  runEvents: RunEventHub;
  logger: Logger;
  /** Single sign-on (OIDC_* variables); absent when not configured. */
  oidc?: OidcProvider;
  config: {
    /** Cookies get `Secure` when served over https. */
    secureCookies: boolean;
    /** Largest accepted request body, in bytes. */
    bodyLimitBytes: number;
    /** Largest chat import (`POST /api/sessions/import`), in bytes; 8 MiB by default. */
    chatImportLimitBytes?: number;
    /** Seconds between SSE heartbeat comments, so proxies keep idle streams open. */
    sseHeartbeatSeconds: number;
    /** APP_SECRET: encrypts model API keys at rest (never logged, never sent). */
    appSecret: string;
    /** METRICS_TOKEN: lets a Prometheus scraper read /metrics without an admin session. */
    metricsToken?: string;
    /** FETCH_ALLOW_PRIVATE_NETWORKS: lets tool discovery (MCP servers, OpenAPI specs) reach private addresses. */
    allowPrivateNetworks?: boolean;
    /** MCP_STDIO_COMMANDS: the local commands an MCP tool may start (none by default). */
    mcpStdioCommands?: string[];
    /** Adds Node process metrics (CPU, memory, event loop) to /metrics; off in tests that build many apps. */
    processMetrics?: boolean;
    /** Failed sign-ins allowed per account and per client address in a window; defaults in security/login-throttle.ts. */
    loginThrottle?: LoginThrottleOptions;
    /** SIGNUP and SIGNUP_EMAIL_DOMAINS (routes/sign-up.ts); absent: no sign-ups. `rateLimit` per client address, default in the route. */
    signUp?: { mode: 'open' | 'approval'; emailDomains: string[]; rateLimit?: RateLimit };
    /**
     * SMTP_* configured (services/email; the workers send): "Forgot password?" and, with
     * `verifySignUps` (SIGNUP_VERIFY_EMAIL), sign-ups confirm their email before signing in. Absent: no
     * email at all. `rateLimits` per email address and per client, defaults in routes/account-email.ts.
     */
    email?: { verifySignUps: boolean; rateLimits?: { perAddress?: RateLimit; perClient?: RateLimit } };
    /** Transcriptions (dictation) allowed per user in a window; default in routes/transcriptions.ts. */
    transcriptionRateLimit?: RateLimit;
    /** Web pages a user may have fetched (attached in a chat or added to a knowledge base), each page one use; default in routes/web-pages.ts. */
    webPageRateLimit?: RateLimit;
    /** PUBLIC_ORIGIN: an https origin adds Strict-Transport-Security; also an accepted Origin for cookie writes. */
    publicOrigin?: string;
    /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client (security/client-address.ts; loopback and private networks by default). */
    trustedProxies?: BlockList;
    /** Deepest nesting of objects and arrays accepted in a JSON request body. */
    jsonMaxDepth?: number;
    /** How often, at most, a session in use writes its "last active" (default 5 minutes; tests shorten it). */
    sessionActivityIntervalMs?: number;
  };
};

/** The signed-in user as the auth cache keeps them; their custom instructions ride along so a run's start reads nothing more. */
export type AuthUser = { id: string; email: string; name: string; role: 'admin' | 'user'; customInstructions: string | null; twoFactor: boolean; groupIds: readonly string[] };

export type AppEnv = {
  Variables: AppDeps & {
    user: AuthUser | null;
    requestId: string;
    /** How the caller authenticated: a session cookie (then which one) or an API token. */
    credential: { kind: 'session'; token: string; sessionId: string } | { kind: 'api-token' } | null;
    metrics: AppMetrics;
    /** Runs this process answered 202 for, for the events GET that follows (routes/created-runs.ts). */
    createdRuns: CreatedRuns;
    /** Throttles the sessions' "last active" writes in this process (middleware/session-activity.ts). */
    sessionActivity: SessionActivity;
  };
};
