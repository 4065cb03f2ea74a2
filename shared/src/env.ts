import { isIP } from 'node:net';
import { z } from 'zod';
import { clusterNodesSchema } from './redis/target';

/** `10.0.0.1`, `10.0.0.0/8`, `::1` or `fc00::/7`. */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const booleanFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .default('0')
  .transform((value) => value === '1' || value === 'true' || value === 'yes');

/** A comma-separated list, trimmed, empty entries dropped. */
const commaList = z
  .string()
  .default('')
  .transform((value) => value.split(',').map((entry) => entry.trim()).filter(Boolean));

/** A list of email domains (`example.com,@example.org`), lowercased, without the `@`. */
const emailDomains = (name: string) =>
  commaList
    .transform((domains) => domains.map((domain) => domain.toLowerCase().replace(/^@/, '')))
    .refine((domains) => domains.every((domain) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)), `${name} must list domains, e.g. example.com,example.org`);

/** 127.0.0.0/8, ::1 or localhost: the only hosts an http OpenID issuer may have (tests' fake provider). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** MODEL_STALL_TIMEOUT_MS's default, also the worker's when its config leaves it out (tests). */
export const DEFAULT_MODEL_STALL_TIMEOUT_MS = 5 * 60_000;

/** Every environment variable agentq reads, in one place (SPEC §6). */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  /**
   * PostgreSQL connections per process. Prepared statements pipeline on a busy connection, so far
   * fewer connections than concurrent jobs serve a worker (docs/benchmarks.md measured 5, 10 and 20 on
   * two cores: more were slower); behind PgBouncer (DATABASE_PREPARE=0) keep it near WORKER_CONCURRENCY.
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
  /** Named prepared statements; set 0 behind PgBouncer in transaction mode, which cannot keep them. */
  DATABASE_PREPARE: z.enum(['1', '0', 'true', 'false']).default('1').transform((value) => value === '1' || value === 'true'),
  /** Open every pool connection when a process starts (the first burst of work finds them open) instead of on first use. */
  DATABASE_POOL_WARM: z.enum(['1', '0', 'true', 'false']).default('1').transform((value) => value === '1' || value === 'true'),
  /** Where the embedded PGlite keeps its files when DATABASE_URL is unset. */
  DATA_DIR: z.string().default('.data'),
  REDIS_URL: z.string().url().optional(),
  /** Comma-separated seed nodes of a Redis Cluster (`host:port,host:port`); used instead of REDIS_URL. */
  REDIS_CLUSTER_NODES: clusterNodesSchema.optional(),
  /** Prefix for every BullMQ key, so several installations (or test runs) can share one Redis. */
  QUEUE_PREFIX: z.string().min(1).default('agentq'),
  APP_SECRET: z.string().min(16, 'APP_SECRET must be at least 16 characters').optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  LLM_BASE_URL: z.string().url().optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().optional(),
  FETCH_ALLOW_PRIVATE_NETWORKS: booleanFlag,
  /** Comma-separated commands an `mcp` tool may start as a local stdio server; unset = stdio servers off. */
  MCP_STDIO_COMMANDS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((command) => command.trim()).filter(Boolean)),
  /** The all-in-one server registers a scripted demo model (no API key needed); 0 turns it off. */
  DEMO_MODEL: z.enum(['1', '0', 'true', 'false']).default('1').transform((value) => value === '1' || value === 'true'),
  /** The all-in-one server creates the starter tools (fetch, calculator, datetime, code, document) on a database without tools; 0 turns it off. */
  STARTER_TOOLS: z.enum(['1', '0', 'true', 'false']).default('1').transform((value) => value === '1' || value === 'true'),
  /** Set when the web process runs on its own and must proxy /api to the API process. */
  API_URL: z.string().url().optional(),
  /**
   * The reverse proxies whose X-Forwarded-For names the client (the login throttle's address):
   * addresses or CIDR blocks, comma-separated. Unset: loopback and the private networks.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((entry) => entry.trim()).filter(Boolean))
    .refine((entries) => entries.every(isAddressOrCidr), 'TRUSTED_PROXIES must list IP addresses or CIDR blocks, e.g. 10.0.0.0/8,::1'),
  /** Cookies get `Secure` when the public origin is https. */
  PUBLIC_ORIGIN: z.string().url().optional(),
  /** How long a stopping worker lets active jobs finish before it aborts their tools and hands the runs over. */
  WORKER_SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(0).default(30_000),
  /** A job's lock lasts this long without renewal; a crashed worker's job moves on after lock + stall interval. */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(1000).default(15_000),
  /** Default wait for a human decision before an approval expires (counted as denied). */
  APPROVAL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10 * 60_000),
  /** A model call that sends nothing this long, before its first output or between two, fails the run (a provider that hung). */
  MODEL_STALL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(DEFAULT_MODEL_STALL_TIMEOUT_MS),
  /** How often each worker re-enqueues runs PostgreSQL says are active but Redis has no job for. */
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Lets Prometheus scrape GET /metrics with `Authorization: Bearer <token>` (admins can always read it). */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Single sign-on with OpenID Connect (services/oidc, docs/security.md): the provider's issuer URL,
   * whose `/.well-known/openid-configuration` describes it. Unset: SSO off, passwords only.
   */
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The sign-in button says "Sign in with <this>". */
  OIDC_DISPLAY_NAME: z.string().trim().min(1).max(60, 'OIDC_DISPLAY_NAME: use at most 60 characters').default('Single sign-on'),
  /** Space- or comma-separated scopes asked for; `openid` is required. */
  OIDC_SCOPES: z
    .string()
    .default('openid email profile')
    .transform((value) => [...new Set(value.split(/[\s,]+/).filter(Boolean))])
    .refine((scopes) => scopes.includes('openid'), 'OIDC_SCOPES must include openid'),
  /** A first sign-in of someone with no account makes one (role user); 0: only existing accounts (matched by verified email) may sign in. */
  OIDC_AUTO_CREATE_USERS: z.enum(['1', '0', 'true', 'false', 'yes', 'no']).default('1').transform((value) => value === '1' || value === 'true' || value === 'yes'),
  /** Only people whose verified email is in one of these domains may sign in with SSO; unset = any. */
  OIDC_ALLOWED_EMAIL_DOMAINS: emailDomains('OIDC_ALLOWED_EMAIL_DOMAINS'),
  /** Members of any of these provider groups become admins at each SSO sign-in. */
  OIDC_ADMIN_GROUPS: commaList,
  /** The ID token (or userinfo) claim holding the user's groups. */
  OIDC_GROUPS_CLAIM: z.string().trim().min(1).default('groups'),
  /**
   * Who may make an account on the sign-in page (routes/sign-up.ts): nobody (`off`: admins add
   * people, or SSO does), anyone (`open`), or anyone once an admin approves it (`approval`).
   */
  SIGNUP: z.enum(['off', 'open', 'approval']).default('off'),
  /** With SIGNUP on: only emails in these domains may sign up; unset = any. */
  SIGNUP_EMAIL_DOMAINS: emailDomains('SIGNUP_EMAIL_DOMAINS'),
  /**
   * Outgoing email (services/email): "Forgot password?" links and sign-up verification. Either
   * SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`) or SMTP_HOST with SMTP_PORT, SMTP_USER,
   * SMTP_PASSWORD, SMTP_SECURE (TLS from the first byte; otherwise STARTTLS when offered). Unset: no email.
   */
  SMTP_URL: z.string().url().refine((value) => /^smtps?:$/.test(new URL(value).protocol), 'SMTP_URL must start with smtp:// or smtps://').optional(),
  SMTP_HOST: z.string().trim().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  SMTP_SECURE: booleanFlag,
  /** The sender of every email, `agentq <noreply@example.com>` or a bare address; required with SMTP. */
  SMTP_FROM: z.string().trim().min(3).max(320).optional(),
  /** With SIGNUP on and SMTP set: a new account signs in only after following the link mailed to it. */
  SIGNUP_VERIFY_EMAIL: booleanFlag,
  /** Tests only: lets the OpenID client speak plain http to a loopback issuer (refused for any other). */
  OIDC_ALLOW_INSECURE_HTTP: booleanFlag,
}).superRefine(function checkOidcSettings(env, context) {
  const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  const smtp = Boolean(env.SMTP_URL || env.SMTP_HOST);
  if (env.SMTP_URL && env.SMTP_HOST) problem('SMTP_HOST', 'Set SMTP_URL or SMTP_HOST, not both');
  if (smtp && !env.SMTP_FROM) problem('SMTP_FROM', 'SMTP_FROM is required with SMTP_URL/SMTP_HOST: the sender address of every email, e.g. agentq <noreply@example.com>');
  if (smtp && !env.PUBLIC_ORIGIN) problem('PUBLIC_ORIGIN', 'PUBLIC_ORIGIN is required with SMTP_URL/SMTP_HOST: emailed links point at it');
  if (!smtp && env.SMTP_FROM) problem('SMTP_FROM', 'SMTP_FROM is set but no SMTP server is: set SMTP_URL (smtp://user:pass@host:587) or SMTP_HOST');
  if (env.SIGNUP_VERIFY_EMAIL && !smtp) problem('SIGNUP_VERIFY_EMAIL', 'SIGNUP_VERIFY_EMAIL needs email: set SMTP_URL (or SMTP_HOST) and SMTP_FROM too');
  if (!env.OIDC_ISSUER) {
    for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) if (env[key]) problem(key, `${key} is set but OIDC_ISSUER is not: set the provider's issuer URL too, or remove ${key}`);
    return;
  }
  for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) if (!env[key]) problem(key, `${key} is required with OIDC_ISSUER (from the client registered at the provider)`);
  if (!env.PUBLIC_ORIGIN) problem('PUBLIC_ORIGIN', 'PUBLIC_ORIGIN is required with OIDC_ISSUER: the redirect URI registered at the provider is PUBLIC_ORIGIN + /api/auth/oidc/callback');
  if (!URL.canParse(env.OIDC_ISSUER)) return;
  const issuer = new URL(env.OIDC_ISSUER);
  if (issuer.search || issuer.hash) problem('OIDC_ISSUER', 'OIDC_ISSUER must be the bare issuer URL, without ?query or #fragment');
  const loopback = isLoopbackHost(issuer.hostname);
  if (env.OIDC_ALLOW_INSECURE_HTTP && !(issuer.protocol === 'http:' && loopback)) {
    problem('OIDC_ALLOW_INSECURE_HTTP', 'OIDC_ALLOW_INSECURE_HTTP is for tests against a provider on http://127.0.0.1 only: unset it');
  } else if (issuer.protocol !== 'https:' && !env.OIDC_ALLOW_INSECURE_HTTP) {
    problem('OIDC_ISSUER', 'OIDC_ISSUER must be an https:// URL');
  }
});

export type Env = z.infer<typeof envSchema>;

/** Parses an environment; throws a readable error naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  return result.data;
}

let cached: Env | undefined;

/** The process environment, parsed once. Only entry files call this; everything else receives values. */
export function getEnv(): Env {
  cached ??= parseEnv();
  return cached;
}

/** Entry files of separate processes: what to print when a required variable is missing (one line each). */
export const REQUIRED_FOR_PROCESSES = {
  DATABASE_URL: 'DATABASE_URL is not set: separate processes need PostgreSQL (e.g. postgres://user:pass@127.0.0.1:5432/agentq); `npm start` runs everything in one process without it',
  REDIS_URL: 'REDIS_URL is not set: separate processes need Redis (e.g. redis://127.0.0.1:6379), or REDIS_CLUSTER_NODES for a Redis Cluster',
  APP_SECRET: 'APP_SECRET is not set: generate one with `openssl rand -base64 32` and give the same value to the API and every worker',
} as const;

/**
 * The environment for a process entry file, or one clear line per problem on stderr and exit 1
 * (an operator's typo is not a stack trace).
 */
export function getEnvOrExit(required: (keyof typeof REQUIRED_FOR_PROCESSES)[] = []): Env {
  let env: Env;
  try {
    env = getEnv();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const missing = required.filter((key) => !env[key] && !(key === 'REDIS_URL' && env.REDIS_CLUSTER_NODES));
  if (missing.length > 0) {
    for (const key of missing) console.error(REQUIRED_FOR_PROCESSES[key]);
    process.exit(1);
  }
  return env;
}
