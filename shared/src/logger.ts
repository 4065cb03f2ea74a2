import { pino, type Logger } from 'pino';

export type { Logger };

/** Keys whose values never reach a log line, wherever they sit in the logged object. */
export const REDACTED_PATHS = [
  'password', '*.password', 'passwordHash', '*.passwordHash', 'apiKey', '*.apiKey', 'token', '*.token',
  'authorization', '*.authorization', 'headers.authorization', 'headers.cookie', '*.headers.authorization',
  '*.headers.cookie', 'cookie', '*.cookie', 'secret', '*.secret',
];

/** Structured JSON logs (pino) with secrets redacted. */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    name: options.name ?? 'agentq',
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}
