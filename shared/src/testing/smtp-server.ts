import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One email as the test SMTP server received it, parsed. */
export type ReceivedEmail = { from: string; to: string[]; subject: string; text: string; html: string; raw: string };

/**
 * A real SMTP server on 127.0.0.1 (a free port) that keeps what it receives, for tests of the
 * emails agentq sends. It asks for the `user`/`pass` login when given one (no TLS: loopback only).
 * @example const smtp = await startTestSmtpServer(); …; const mail = await smtp.waitFor((m) => m.to.includes(email));
 */
export async function startTestSmtpServer(options: { user?: string; pass?: string; failNext?: number } = {}) {
  const received: ReceivedEmail[] = [];
  const waiters = new Set<() => void>();
  let failures = options.failNext ?? 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.user,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (failures > 0) {
          failures -= 1;
          callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            raw,
          });
          for (const wake of waiters) wake();
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const credentials = options.user ? `${encodeURIComponent(options.user)}:${encodeURIComponent(options.pass ?? '')}@` : '';

  /** The first email (received before or after the call) that `match` accepts; rejects after `timeoutMs`. */
  async function waitFor(match: (email: ReceivedEmail) => boolean, timeoutMs = 15_000): Promise<ReceivedEmail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No matching email within ${timeoutMs} ms (received ${received.length}: ${received.map((email) => email.to.join(',')).join('; ')})`);
      await new Promise<void>((resolve) => {
        const wake = () => (waiters.delete(wake), clearTimeout(timer), resolve());
        const timer = setTimeout(wake, left);
        waiters.add(wake);
      });
    }
  }

  return {
    port,
    /** For SMTP_URL. */
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    waitFor,
    /** Every email to `address` so far. */
    to: (address: string) => received.filter((email) => email.to.includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The secret in an emailed link (`…#token=…`), from the email's text. */
export function tokenInEmail(email: ReceivedEmail): string {
  const match = /#token=([A-Za-z0-9_-]+)/.exec(email.text);
  if (!match) throw new Error(`No link with a token in: ${email.text}`);
  return match[1]!;
}

/** The full link an email carries. */
export function linkInEmail(email: ReceivedEmail): string {
  const match = /(https?:\/\/\S+#token=[A-Za-z0-9_-]+)/.exec(email.text);
  if (!match) throw new Error(`No link in: ${email.text}`);
  return match[1]!;
}
