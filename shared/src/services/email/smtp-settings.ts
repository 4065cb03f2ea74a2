import type { Env } from '../../env';

/**
 * Where outgoing email goes and what it links to (SMTP_* and PUBLIC_ORIGIN). Holds the SMTP password:
 * never log it or send it anywhere; `describeSmtp` is the loggable form.
 */
export type SmtpSettings = {
  host: string;
  port: number;
  /** TLS from the first byte (smtps, usually 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** The From header of every email. */
  from: string;
  /** PUBLIC_ORIGIN: emailed links are this origin plus a path, never one taken from a request's Host. */
  publicOrigin: string;
};

/** SMTP_URL or SMTP_HOST & co., as settings; undefined when no SMTP server is configured (no email). */
export function smtpSettingsFromEnv(env: Env): SmtpSettings | undefined {
  if (!env.SMTP_FROM || !env.PUBLIC_ORIGIN) return undefined;
  const publicOrigin = new URL(env.PUBLIC_ORIGIN).origin;
  if (env.SMTP_URL) {
    const url = new URL(env.SMTP_URL);
    const secure = url.protocol === 'smtps:';
    const user = decodeURIComponent(url.username);
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      auth: user ? { user, pass: decodeURIComponent(url.password) } : undefined,
      from: env.SMTP_FROM,
      publicOrigin,
    };
  }
  if (!env.SMTP_HOST) return undefined;
  return {
    host: env.SMTP_HOST,
    port: env.SMTP_PORT ?? (env.SMTP_SECURE ? 465 : 587),
    secure: env.SMTP_SECURE,
    auth: env.SMTP_USER ? { user: env.SMTP_USER, pass: env.SMTP_PASSWORD ?? '' } : undefined,
    from: env.SMTP_FROM,
    publicOrigin,
  };
}

/** The settings as they may be logged: the server and the sender, never the credentials. */
export function describeSmtp(settings: SmtpSettings): { host: string; port: number; secure: boolean; authenticated: boolean; from: string } {
  return { host: settings.host, port: settings.port, secure: settings.secure, authenticated: settings.auth !== undefined, from: settings.from };
}
