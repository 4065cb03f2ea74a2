import nodemailer from 'nodemailer';
import type { SmtpSettings } from './smtp-settings';

/** One email as the templates render it. */
export type EmailMessage = { to: string; subject: string; text: string; html: string };

/** Sends email over SMTP; `close` ends its pooled connections. */
export type EmailSender = {
  settings: SmtpSettings;
  send: (message: EmailMessage) => Promise<void>;
  close: () => void;
};

/** Why a send failed, safe to log: the SMTP code and reply, never the credentials or the message. */
export class EmailSendError extends Error {
  override name = 'EmailSendError';
  readonly code: string | undefined;
  readonly responseCode: number | undefined;
  constructor(cause: unknown) {
    const failure = cause as { code?: string; responseCode?: number; message?: string };
    super(`Sending email failed: ${failure.code ?? 'error'}${failure.responseCode ? ` (SMTP ${failure.responseCode})` : ''}`);
    this.code = failure.code;
    this.responseCode = failure.responseCode;
  }
}

/**
 * An SMTP sender (nodemailer) on a small connection pool, so a burst of emails reuses one login.
 * Failures become EmailSendError, whose message names the SMTP code and nothing secret.
 * @example const sender = createEmailSender(settings); await sender.send({ to, subject, text, html });
 */
export function createEmailSender(settings: SmtpSettings): EmailSender {
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: 2,
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.auth,
    connectionTimeout: 15_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // nodemailer's own logger would print the SMTP conversation, AUTH included.
    logger: false,
    debug: false,
  });
  return {
    settings,
    async send(message) {
      try {
        await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      } catch (error) {
        throw new EmailSendError(error);
      }
    },
    close: () => transport.close(),
  };
}
