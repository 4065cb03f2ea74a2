import { pino, type DestinationStream, type Logger } from 'pino';
import { recoverFromPostgresDriverFault } from './db/postgres/driver-fault';

export type { Logger };

/** Secret-bearing keys, at the top of a logged object or one or two levels down. */
const SECRET_KEYS = [
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
];

/** Header names whose values are credentials, wherever a `headers` object is logged. */
const SECRET_HEADERS = ['authorization', 'Authorization', 'cookie', 'Cookie', '["set-cookie"]', '["Set-Cookie"]', '["x-api-key"]', '["proxy-authorization"]'];

/** Keys whose values never reach a log line, wherever they sit in the logged object. */
export const REDACTED_PATHS = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
  ...SECRET_HEADERS.flatMap((header) => {
    const path = header.startsWith('[') ? `headers${header}` : `headers.${header}`;
    return [path, `*.${path}`, `*.*.${path}`];
  }),
  // A fetch tool's config carries headers the admin set (often an Authorization).
  'config.defaultHeaders',
  '*.config.defaultHeaders',
  'defaultHeaders',
  '*.defaultHeaders',
];

/**
 * Structured JSON logs (pino) with secrets redacted. `destination` defaults to stdout; tests pass
 * a stream to read the lines back.
 * @example const logger = createLogger({ level: 'info', name: 'agentq-api' });
 */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
    name: options.name ?? 'agentq',
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
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
