/**
 * The UI's one message catalog, English and Simplified Chinese. `t(key, params)` reads the current
 * locale, which is `$state`, so every component re-renders when the user switches language. Texts
 * the model sees (tool descriptions, tool errors) stay English and never go through here.
 *
 * Why our own catalog rather than paraglide: a typed object per language needs no compiler step in
 * the SvelteKit 3 build, `zh` is checked for completeness by TypeScript (`satisfies Messages`), and the
 * SPA switches language without a reload.
 */
import { en, type MessageKey } from './messages/en.ts';
import { zh } from './messages/zh.ts';

export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];
export type { MessageKey };

/** The language names, each in its own language (what a switcher shows). */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '中文' };

const catalogs: Record<Locale, Record<MessageKey, string>> = { en, zh };
const STORAGE_KEY = 'agentq.locale';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The browser's preference: a stored choice on this device, else the first supported navigator language. */
export function browserLocale(): Locale {
  if (typeof window === 'undefined') return 'en';
  const stored = safeStorage()?.getItem(STORAGE_KEY);
  if (isLocale(stored)) return stored;
  for (const language of navigator.languages ?? [navigator.language]) {
    const base = language?.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

class LocaleState {
  current = $state<Locale>(browserLocale());
}

/** The current UI language; read `locale.current`, change it with `setLocale`. */
export const locale = new LocaleState();

/**
 * Switches the UI language and remembers it on this device (the account remembers it through
 * `PATCH /api/auth/me`, which the caller sends).
 */
export function setLocale(next: Locale): void {
  locale.current = next;
  safeStorage()?.setItem(STORAGE_KEY, next);
  if (typeof document !== 'undefined') document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
}

/**
 * The message for `key` in the current language, `{name}` placeholders filled from `params`.
 * @example t('tokens.created', { name: 'CI' }) // "Created CI. Copy the token now: it is shown only once."
 */
export function t(key: MessageKey, params?: Record<string, string | number>): string {
  return fill(catalogs[locale.current][key] ?? en[key], params);
}

/**
 * The text around one placeholder, for wrapping the value in markup (a `<time>`, a link).
 * Other placeholders are filled from `params`.
 * @example tAround('approval.left', 'time') // ['', ' left'] in English, ['剩余 ', ''] in Chinese
 */
export function tAround(key: MessageKey, name: string, params?: Record<string, string | number>): [before: string, after: string] {
  const [before = '', after = ''] = (catalogs[locale.current][key] ?? en[key]).split(`{${name}}`);
  return [fill(before, params), fill(after, params)];
}

function fill(template: string, params: Record<string, string | number> | undefined): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The current language as `Intl` formatters take it. */
export function intlLocale(): string {
  return locale.current === 'zh' ? 'zh-CN' : 'en';
}

/** A date and time in the current language's format. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '';
  return new Date(value).toLocaleString(intlLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}

function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
