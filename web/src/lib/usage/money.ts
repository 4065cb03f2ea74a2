import { intlLocale } from '../i18n/i18n.svelte.ts';

/**
 * US dollars as the usage pages and model prices show them: cents for a dollar or more, and enough
 * decimals below that for a cheap run's cost not to read as $0.00 (up to 6, trailing zeros dropped).
 */
export function formatUsd(amount: number, locale = intlLocale()): string {
  const size = Math.abs(amount);
  const maximumFractionDigits = size === 0 || size >= 1 ? 2 : size >= 0.01 ? 4 : 6;
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits }).format(amount);
}
