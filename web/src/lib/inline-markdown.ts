import DOMPurify from 'isomorphic-dompurify';
import { Marked } from 'marked';
import { escapeHtml } from './escape-html.ts';

/**
 * A Marked of its own for one line of inline Markdown (announcement banners): the chat's renderer
 * (markdown.ts) brings code highlighting, diagrams and TeX with it, and the layout that shows banners
 * on every page would load them all; its KaTeX stylesheet, pulled in twice, also declared every
 * KaTeX font twice.
 */
const inline = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML is shown as text, never rendered; images become links (no third-party requests).
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer nofollow">[image: ${escapeHtml(text || href)}]</a>`,
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens);
      const titleAttribute = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(href)}"${titleAttribute} target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
    },
  },
});

/**
 * One line of inline Markdown → safe HTML without block elements: links (opening in a new tab),
 * bold, italics and code, sanitized with DOMPurify as the last step.
 * @example <span>{@html renderInlineMarkdown('Read **the notes**: [changes](https://example.com)')}</span>
 */
export function renderInlineMarkdown(text: string): string {
  if (!text) return '';
  let html: string;
  try {
    html = inline.parseInline(text, { async: false });
  } catch {
    html = escapeHtml(text);
  }
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target'] });
}
