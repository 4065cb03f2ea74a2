import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { recoverFromPostgresDriverFault } from './db/postgres/driver-fault';

export type { Logger };

/** Keys whose values never reach a log line, at any depth of a logged object (up to MAX_DEPTH). */
const SECRET_KEYS = new Set([
  'password',
  'passwordHash',
  'apiKey',
  'apiKeyEncrypted',
  'api_key',
  'token',
  'accessToken',
  'refreshToken',
  'secret',
  'appSecret',
  'authorization',
  'Authorization',
  'cookie',
  'APP_SECRET',
  'ADMIN_PASSWORD',
  'LLM_API_KEY',
  'METRICS_TOKEN',
  // A fetch tool's config carries headers the admin set (often an Authorization).
  'defaultHeaders',
]);

/** Header names (lower-cased) whose values are credentials, inside any object logged under `headers`. */
// x-subscription-token: Brave Search's API key (the web-search tool).
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-subscription-token', 'proxy-authorization']);

const CENSOR = '[redacted]';
/** Deeper than anything we log; below it a value is cut rather than walked (cycles included). */
const MAX_DEPTH = 6;

/**
 * The value with every secret replaced by `[redacted]`; objects without secrets are returned as
 * they are (nothing is copied on the hot path). Replaces pino's path-based redaction, whose 79
 * wildcard paths cost ~115 µs per log line against ~2 µs for the line itself (docs/benchmarks.md).
 */
export function redactSecrets(value: unknown, depth = 0, inHeaders = false): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
  // An error under any key is written as pino writes `err` (type, message, stack, own properties), redacted.
  if (value instanceof Error) return redactSecrets(pino.stdSerializers.err(value), depth, inHeaders);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const secret = SECRET_KEYS.has(key) || (inHeaders && SECRET_HEADERS.has(key.toLowerCase()));
    const redacted = secret ? (item === undefined ? item : CENSOR) : redactSecrets(item, depth + 1, key === 'headers' || key === 'Headers');
    if (redacted !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
  }
  return copy ?? value;
}

/** How long a log line may wait in the buffer before it is written. */
const LOG_FLUSH_INTERVAL_MS = 200;

/** Lines at this level or above (warn, error, fatal) are written at once, with whatever waits before them. */
const WRITTEN_AT_ONCE_LEVEL = 40;

/**
 * stdout, written in batches of up to 4 kB instead of one write per line: under load each write is a
 * system call and a wake-up of whatever reads the pipe (two info lines per standalone execution cost
 * a tenth of its throughput, docs/benchmarks.md). An info or debug line waits at most
 * LOG_FLUSH_INTERVAL_MS; a warning or error goes out at once (what a crash must not take with it),
 * and pino flushes what is left when the process exits.
 */
function stdoutInBatches(settings: LoggerOptions): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  // Due LOG_FLUSH_INTERVAL_MS after the first line since the last flush, not on an interval: sonic-boom's
  // flush of an empty buffer still writes (an empty write on the thread pool and a wake-up of the
  // event loop), which an idle process did five times a second.
  let flushDue: NodeJS.Timeout | undefined;
  const flushSoon = () => {
    flushDue ??= setTimeout(() => {
      flushDue = undefined;
      destination.flush();
    }, LOG_FLUSH_INTERVAL_MS).unref();
  };
  const writeNow = () => {
    try {
      destination.flushSync();
    } catch {
      // A write in flight (EAGAIN on a full pipe): the line goes out with it, moments later.
    }
  };
  return pino(
    {
      ...settings,
      hooks: {
        logMethod(args, write, level) {
          write.apply(this, args);
          if (level >= WRITTEN_AT_ONCE_LEVEL) writeNow();
          else flushSoon();
        },
      },
    },
    destination,
  );
}

/**
 * Structured JSON logs (pino) with secrets redacted: the logged object, child bindings and
 * serialized errors all pass through `redactSecrets` before they are written. `destination`
 * defaults to stdout; tests pass a stream to read the lines back.
 * @example const logger = createLogger({ level: 'info', name: 'agentq-api' });
 */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
    name: options.name ?? 'agentq',
    level: options.level ?? 'info',
    formatters: { log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown> },
    // pino serializes errors after the log formatter ran: their own properties are redacted here.
    serializers: { err: (error: unknown) => redactSecrets(pino.stdSerializers.err(error as Error)) },
  };
  const logger = options.destination ? pino(settings, options.destination) : stdoutInBatches(settings);
  // Child bindings skip the formatters (pino resets them for children): redact them on the way in.
  // Children are created from their parent's prototype chain, so every descendant inherits this.
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings) as typeof bindings, childOptions);
  } as typeof logger.child;
  return logger;
}

/**
 * Process-level safety net for long-running processes: an unhandled rejection is logged (with its
 * stack) instead of killing a worker mid-job, since Node's default for them is to exit. Each one is
 * still a bug to fix at its source; the chaos suite counts process crashes and these log lines.
 * An uncaught exception leaves the process in an unknown state: it is logged, then the process exits;
 * the one exception is postgres.js's null-socket fault, whose state is known and repaired by
 * replacing the pools (db/postgres/driver-fault.ts).
 */
export function guardProcess(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled rejection');
  });
  process.on('uncaughtException', (error) => {
    if (recoverFromPostgresDriverFault(error)) {
      logger.warn({ err: error }, 'postgres driver fault on a closed connection: database pool replaced');
      return;
    }
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });
}
