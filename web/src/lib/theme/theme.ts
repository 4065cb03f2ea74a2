/**
 * The colour theme a reader chose on this device: the system's (the default), light or dark. It
 * lives in a cookie, so the server renders the page in it (theme-handle.ts, no flash of the other
 * theme) and the browser applies a change at once (theme.svelte.ts); app.css's colours are
 * light-dark() pairs that `color-scheme` picks from.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_COOKIE = 'agentq-theme';

/** A cookie's value as a theme; anything else is the system's. */
export function parseTheme(value: string | undefined | null): Theme {
  return THEMES.includes(value as Theme) ? (value as Theme) : 'system';
}

/** `<html>`'s attribute for a theme: none for the system's, whose colours follow the media query. */
export function themeAttribute(theme: Theme): string {
  return theme === 'system' ? '' : ` data-theme="${theme}"`;
}
