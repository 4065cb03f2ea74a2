import type { Handle } from '@sveltejs/kit/hooks';
import { parseTheme, THEME_COOKIE, themeAttribute } from './theme.ts';

/** Renders every page in the reader's theme (its cookie), so a dark page never flashes light. */
export const themeHandle: Handle = ({ event, resolve }) => {
  const attribute = themeAttribute(parseTheme(event.cookies.get(THEME_COOKIE)));
  if (!attribute) return resolve(event);
  return resolve(event, { transformPageChunk: ({ html }) => html.replace('<html ', `<html${attribute} `) });
};
