import type { EmailTokenPurpose } from '../../db/schema';

/** The languages emails come in; a user's saved UI language picks one, else English. */
export type EmailLocale = 'en' | 'zh';

type TemplateInput = { name: string; link: string; expiresInMinutes: number };
type Wording = { subject: string; greeting: (name: string) => string; body: (minutes: number) => string; action: string; ignore: string; fallback: string };

const WORDING: Record<EmailTokenPurpose, Record<EmailLocale, Wording>> = {
  'password-reset': {
    en: {
      subject: 'Reset your agentq password',
      greeting: (name) => `Hello ${name},`,
      body: (minutes) => `Someone asked to reset the password of your agentq account. The link below lets you choose a new one; it works once, within ${minutes} minutes, and signs you out everywhere else.`,
      action: 'Choose a new password',
      ignore: 'If you did not ask for this, ignore this email: your password stays as it is.',
      fallback: 'If the button does not work, open this address:',
    },
    zh: {
      subject: '重置您的 agentq 密码',
      greeting: (name) => `${name}，您好：`,
      body: (minutes) => `有人请求重置您 agentq 账户的密码。通过下面的链接可以设置新密码；链接只能使用一次，${minutes} 分钟内有效，设置后其他设备上的登录都会退出。`,
      action: '设置新密码',
      ignore: '如果这不是您本人的请求，请忽略此邮件，您的密码不会改变。',
      fallback: '如果按钮无法使用，请打开这个地址：',
    },
  },
  'email-verification': {
    en: {
      subject: 'Confirm your email for agentq',
      greeting: (name) => `Hello ${name},`,
      body: (minutes) => `Thanks for signing up to agentq. Confirm that this address is yours to finish: the link works once, within ${minutes} minutes.`,
      action: 'Confirm my email',
      ignore: 'If you did not sign up, ignore this email: no account will be usable with this address.',
      fallback: 'If the button does not work, open this address:',
    },
    zh: {
      subject: '确认您在 agentq 的邮箱',
      greeting: (name) => `${name}，您好：`,
      body: (minutes) => `感谢您注册 agentq。请确认这个邮箱属于您以完成注册：链接只能使用一次，${minutes} 分钟内有效。`,
      action: '确认我的邮箱',
      ignore: '如果您没有注册，请忽略此邮件，没有人能用这个地址登录。',
      fallback: '如果按钮无法使用，请打开这个地址：',
    },
  },
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The user's saved UI language when emails have it, else English. */
export function emailLocale(locale: string | null | undefined): EmailLocale {
  return locale === 'zh' ? 'zh' : 'en';
}

/**
 * The email for one emailed link, as plain text and as simple HTML (one button, the address spelled
 * out beside it), in the user's language.
 */
export function renderAccountEmail(purpose: EmailTokenPurpose, locale: EmailLocale, input: TemplateInput): { subject: string; text: string; html: string } {
  const wording = WORDING[purpose][locale];
  const greeting = wording.greeting(input.name);
  const body = wording.body(input.expiresInMinutes);
  const text = [greeting, '', body, '', `${wording.action}: ${input.link}`, '', wording.ignore, '', '— agentq'].join('\n');
  const link = escapeHtml(input.link);
  const html = `<!doctype html>
<html lang="${locale === 'zh' ? 'zh-CN' : 'en'}"><body style="margin:0;padding:24px;background:#f6f6f7;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1c1e">
<div style="max-width:480px;margin:0 auto;background:#fff;border-radius:12px;padding:28px">
<p style="margin:0 0 16px">${escapeHtml(greeting)}</p>
<p style="margin:0 0 24px;line-height:1.5">${escapeHtml(body)}</p>
<p style="margin:0 0 24px"><a href="${link}" style="display:inline-block;background:#4f46e5;color:#fff;text-decoration:none;padding:10px 18px;border-radius:8px;font-weight:600">${escapeHtml(wording.action)}</a></p>
<p style="margin:0 0 8px;font-size:13px;color:#555">${escapeHtml(wording.fallback)}</p>
<p style="margin:0 0 24px;font-size:13px;word-break:break-all"><a href="${link}">${link}</a></p>
<p style="margin:0;font-size:13px;color:#555">${escapeHtml(wording.ignore)}</p>
</div></body></html>`;
  return { subject: wording.subject, text, html };
}
