import { renderReady } from '../render-ready.ts';
import { parseTheme, THEME_COOKIE, type Theme } from './theme.ts';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

class ThemeState {
  current = $state<Theme>(typeof document === 'undefined' ? 'system' : parseTheme(document.documentElement.dataset.theme));
}

/** The theme chosen on this device; read `theme.current`, change it with `setTheme`. */
export const theme = new ThemeState();

/** Applies `next` to the page now and remembers it on this device (the server renders the next page in it). */
export function setTheme(next: Theme): void {
  theme.current = next;
  if (next === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = next;
  document.cookie = `${THEME_COOKIE}=${next}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax`;
  // Diagrams are drawn in the theme's colours: draw them again.
  renderReady();
}

// The system's scheme changing under a page that follows it: diagrams are drawn again too.
if (typeof matchMedia === 'function') matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => renderReady());

/** Whether the page shows dark colours now: the chosen theme, or the system's. */
export function showsDark(): boolean {
  if (theme.current !== 'system') return theme.current === 'dark';
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}
