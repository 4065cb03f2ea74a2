import { convertHtmlToMarkdown } from './markdown-threads';
import { mediaTypeOf } from './read-body';

export type ParseMode = 'markdown' | 'raw' | 'json';

export type ParsedBody = {
  content: string;
  /** What `content` is: converted markdown, JSON, or the text as received. */
  format: 'markdown' | 'json' | 'text';
  /** parseMode was json but the body did not parse, so it is returned as raw text. */
  degraded: boolean;
  /** Why it degraded, for the model and the logs. */
  note?: string;
};

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Applies the tool's parse mode to a decoded body: markdown converts HTML (other text is kept),
 * raw keeps the text, json parses and re-serialises compactly or degrades to the raw text.
 */
export async function parseBody(text: string, contentType: string, parseMode: ParseMode): Promise<ParsedBody> {
  if (parseMode === 'raw') return { content: text, format: 'text', degraded: false };
  if (parseMode === 'json') {
    try {
      return { content: JSON.stringify(JSON.parse(text)), format: 'json', degraded: false };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { content: text, format: 'text', degraded: true, note: `Body is not valid JSON (${reason}); returned as raw text.` };
    }
  }
  if (!looksLikeHtml(text, contentType)) return { content: text, format: 'text', degraded: false };
  // Off the event loop for large pages (see markdown-threads.ts).
  const conversion = await convertHtmlToMarkdown(text);
  return conversion.method === 'turndown'
    ? { content: conversion.text, format: 'markdown', degraded: false }
    : {
        content: conversion.text,
        format: 'text',
        degraded: false,
        note: 'Page markup was too deeply nested to convert safely; returned as plain text.',
      };
}

/** HTML by declared type, or an untyped body that starts like an HTML document. */
export function looksLikeHtml(text: string, contentType: string): boolean {
  const mediaType = mediaTypeOf(contentType);
  if (HTML_TYPES.has(mediaType)) return true;
  if (mediaType !== '' && mediaType !== 'text/plain' && mediaType !== 'application/octet-stream') return false;
  const start = text.trimStart().slice(0, 256).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html');
}
