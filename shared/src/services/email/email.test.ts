import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { emailTokens } from '../../db/schema';
import { parseEnv } from '../../env';
import { openTestDb, uniqueEmail } from '../../testing';
import { startTestSmtpServer } from '../../testing/smtp-server';
import { createUser } from '../users';
import { consumeEmailToken, deleteDeadEmailTokens, issueEmailToken } from './email-tokens';
import { createEmailSender, EmailSendError } from './send-email';
import { describeSmtp, smtpSettingsFromEnv } from './smtp-settings';
import { renderAccountEmail } from './templates';

const base = { PUBLIC_ORIGIN: 'https://chat.example.com/', SMTP_FROM: 'agentq <noreply@example.com>' };

describe('SMTP settings', () => {
  it('reads SMTP_URL (credentials decoded, ports by scheme) or the discrete variables', () => {
    expect(smtpSettingsFromEnv(parseEnv({ ...base, SMTP_URL: 'smtp://mail%40example.com:p%3Ass@mx.example.com:2525' }))).toEqual({
      host: 'mx.example.com', port: 2525, secure: false, auth: { user: 'mail@example.com', pass: 'p:ss' }, from: base.SMTP_FROM, publicOrigin: 'https://chat.example.com',
    });
    expect(smtpSettingsFromEnv(parseEnv({ ...base, SMTP_URL: 'smtps://mx.example.com' }))).toMatchObject({ port: 465, secure: true, auth: undefined });
    expect(smtpSettingsFromEnv(parseEnv({ ...base, SMTP_HOST: 'mx.example.com', SMTP_USER: 'u', SMTP_PASSWORD: 'secret', SMTP_SECURE: '1' }))).toMatchObject({ host: 'mx.example.com', port: 465, secure: true, auth: { user: 'u', pass: 'secret' } });
    expect(smtpSettingsFromEnv(parseEnv({}))).toBeUndefined();
  });

  it('refuses incomplete or contradictory settings, naming the fix', () => {
    expect(() => parseEnv({ SMTP_URL: 'smtp://mx.example.com' })).toThrow(/SMTP_FROM is required[\s\S]*PUBLIC_ORIGIN is required with SMTP_URL/);
    expect(() => parseEnv({ ...base, SMTP_URL: 'http://mx.example.com' })).toThrow(/SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    expect(() => parseEnv({ ...base, SMTP_URL: 'smtp://a.example.com', SMTP_HOST: 'b.example.com' })).toThrow(/Set SMTP_URL or SMTP_HOST, not both/);
    expect(() => parseEnv({ SIGNUP_VERIFY_EMAIL: '1' })).toThrow(/SIGNUP_VERIFY_EMAIL needs email/);
  });

  it('describes itself for logs without the password', () => {
    const settings = smtpSettingsFromEnv(parseEnv({ ...base, SMTP_URL: 'smtp://user:hunter2-secret@mx.example.com' }))!;
    expect(JSON.stringify(describeSmtp(settings))).not.toContain('hunter2-secret');
  });
});

describe('account email templates', () => {
  it('come in English and Chinese, as text and as HTML that escapes the name', () => {
    const link = 'https://chat.example.com/reset-password#token=abc';
    const en = renderAccountEmail('password-reset', 'en', { name: '<b>Ada</b>', link, expiresInMinutes: 60 });
    expect(en.subject).toBe('Reset your agentq password');
    expect(en.text).toContain(`Choose a new password: ${link}`);
    expect(en.text).toContain('within 60 minutes');
    expect(en.html).toContain('&#60;b&#62;Ada&#60;/b&#62;');
    expect(en.html).not.toContain('<b>Ada</b>');
    expect(en.html).toContain(`href="${link}"`);
    const zh = renderAccountEmail('email-verification', 'zh', { name: '小明', link, expiresInMinutes: 60 });
    expect(zh.subject).toBe('确认您在 agentq 的邮箱');
    expect(zh.text).toContain('小明，您好');
    expect(zh.html).toContain('lang="zh-CN"');
  });
});

describe('createEmailSender', () => {
  it('logs in and delivers; a refused login fails with the SMTP code and never the password', async () => {
    const smtp = await startTestSmtpServer({ user: 'mailer', pass: 'right-password' });
    const settings = { host: '127.0.0.1', port: smtp.port, secure: false, from: 'agentq <noreply@example.com>', publicOrigin: 'http://127.0.0.1' };
    const good = createEmailSender({ ...settings, auth: { user: 'mailer', pass: 'right-password' } });
    const bad = createEmailSender({ ...settings, auth: { user: 'mailer', pass: 'wrong-password-1234' } });
    try {
      await good.send({ to: 'ada@example.com', subject: 'Hello', text: 'plain body', html: '<p>html body</p>' });
      const received = await smtp.waitFor((email) => email.to.includes('ada@example.com'));
      expect(received).toMatchObject({ from: 'noreply@example.com', subject: 'Hello', text: 'plain body', html: '<p>html body</p>' });

      const failure = await bad.send({ to: 'ada@example.com', subject: 'Hello', text: 'x', html: 'x' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EmailSendError);
      expect((failure as EmailSendError).code).toBe('EAUTH');
      expect(JSON.stringify({ message: (failure as Error).message, ...(failure as object) })).not.toContain('wrong-password-1234');
    } finally {
      good.close();
      bad.close();
      await smtp.close();
    }
  });
});

describe('emailed link secrets', () => {
  it('work once, for their purpose only, and the sweep deletes used and expired ones but no live one', async () => {
    const database = await openTestDb();
    try {
      const user = await createUser(database.db, { email: uniqueEmail('tokens'), name: 'Tokens', password: 'a long password', role: 'user' });
      const used = await issueEmailToken(database.db, user.id, 'email-verification');
      expect(await consumeEmailToken(database.db, used.token, 'password-reset')).toBeNull();
      expect(await consumeEmailToken(database.db, used.token, 'email-verification')).toBe(user.id);
      expect(await consumeEmailToken(database.db, used.token, 'email-verification')).toBeNull();
      await issueEmailToken(database.db, user.id, 'password-reset', -1000);
      const live = await issueEmailToken(database.db, (await createUser(database.db, { email: uniqueEmail('tokens'), name: 'Live', password: 'a long password', role: 'user' })).id, 'password-reset');
      expect(await deleteDeadEmailTokens(database.db)).toBeGreaterThanOrEqual(2);
      expect(await database.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id))).toEqual([]);
      expect(await consumeEmailToken(database.db, live.token, 'password-reset')).not.toBeNull();
    } finally {
      await database.close();
    }
  });
});
