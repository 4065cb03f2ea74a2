import DOMPurify from 'isomorphic-dompurify';
import { Marked, type TokenizerAndRendererExtension } from 'marked';
import { highlightCode, languageName } from './code-highlight.ts';
import { canPreview } from './code-preview.ts';
import { diagramSvg } from './diagrams.ts';
import { escapeHtml } from './escape-html.ts';
import { t } from './i18n/i18n.svelte.ts';
import { mathBlock, mathInline } from './markdown-math.ts';

const LONE_TAG_LINE = /^ {0,3}(<\/?[A-Za-z][\w-]*(?:\s[^<>\n]*)?\/?>)[ \t]*(?:\n|$)/;
const LONE_TAG_LINE_ANYWHERE = /^ {0,3}<\/?[A-Za-z][\w-]*(?:\s[^<>\n]*)?\/?>[ \t]*$/m;

/**
 * A line holding nothing but a tag (such as the `<untrusted-content id="…">` fence around
 * fetched pages) becomes a block of its own. CommonMark would open an HTML block there that
 * swallows the Markdown below it up to the next blank line, so a heading right after the
 * fence would show as raw text.
 */
const loneTagLine: TokenizerAndRendererExtension = {
  name: 'loneTagLine',
  level: 'block',
  start: (source) => source.match(LONE_TAG_LINE_ANYWHERE)?.index,
  tokenizer(source) {
    const match = LONE_TAG_LINE.exec(source);
    if (!match) return undefined;
    return { type: 'loneTagLine', raw: match[0], text: match[1] ?? '' };
  },
  renderer: (token) => `<p class="markdown-tag"><code>${escapeHtml(String(token.text))}</code></p>\n`,
};

/** The source numbers `[n]` may cite while one renderMarkdown call parses (parsing is synchronous). */
let citable: ReadonlySet<number> = new Set();
const CITATION = /^\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/;

/**
 * `[n]` or `[n, m]` in prose as citation chips (buttons markdown-view opens the source from), when every
 * number names one of the answer's sources; anything else stays plain text. Code spans and blocks are
 * never inline-parsed, so a `[1]` inside code stays code; `[1](url)` stays a link.
 */
const citation: TokenizerAndRendererExtension = {
  name: 'citation',
  level: 'inline',
  start: (source) => (citable.size > 0 ? source.match(/\[\d/)?.index : undefined),
  tokenizer(source) {
    if (citable.size === 0) return undefined;
    const match = CITATION.exec(source);
    if (!match) return undefined;
    const numbers = (match[1] ?? '').split(',').map((number) => Number(number.trim()));
    if (!numbers.every((number) => citable.has(number))) return undefined;
    return { type: 'citation', raw: match[0], numbers };
  },
  renderer: (token) =>
    (token.numbers as number[])
      .map((number) => `<button type="button" class="citation" data-citation="${number}" aria-label="${escapeHtml(t('citations.chip', { n: number }))}">${number}</button>`)
      .join(''),
};

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Puts blank lines around lone tag lines outside code fences, so such a line also ends a list
 * or paragraph above it instead of being read as that paragraph's last line.
 */
function isolateTagLines(text: string): string {
  let fence: string | null = null;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      lines.push(line);
    } else if (fence === null && LONE_TAG_LINE.test(line)) {
      lines.push('', line, '');
    } else {
      lines.push(line);
    }
  }
  return lines.join('\n');
}

const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** A fenced block whose closing fence has arrived (a block still streaming has none yet). */
function isClosedFence(raw: string): boolean {
  const lines = raw.trimEnd().split('\n');
  return lines.length >= 2 && CLOSING_FENCE.test(lines.at(-1) ?? '');
}

/** A finished Mermaid block: its drawing with the code folded under it, or the code with why it could not be drawn. */
function diagramBody(code: string, pre: string): string {
  const diagram = diagramSvg(code);
  if (!diagram) return pre;
  if ('error' in diagram) return `<p class="diagram-error" role="note">${escapeHtml(t('chat.diagramFailed', { error: diagram.error }))}</p>${pre}`;
  return (
    `<div class="diagram" role="img" aria-label="${escapeHtml(t('chat.diagram'))}">${diagram.svg}</div>` +
    `<details class="diagram-source"><summary>${escapeHtml(t('chat.diagramCode'))}</summary>${pre}</details>`
  );
}

const markdown = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  extensions: [loneTagLine, mathBlock, mathInline, citation],
  renderer: {
    // Tool results and model text are untrusted: their raw HTML is shown as text, never rendered.
    html: ({ text }) => escapeHtml(text),
    // Images in untrusted content would make the browser request third-party URLs: link them instead.
    image: ({ href, text }) =>
      `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer nofollow">[image: ${escapeHtml(text || href)}]</a>`,
    // A code block gets a header with its language and a Copy button (markdown-view handles the click),
    // HTML and SVG a Preview button too, and is highlighted when its language is loaded; long lines
    // scroll inside the block.
    code({ text, lang, raw }) {
      const info = lang?.trim().split(/\s+/)[0] ?? '';
      const language = languageName(info);
      const body = highlightCode(text, info) ?? escapeHtml(text);
      const header =
        `<div class="code-header"><span class="code-language">${escapeHtml(info || 'text')}</span>` +
        `<span class="code-actions">${
          canPreview(info)
            ? `<button type="button" class="code-copy" data-preview-code="${escapeHtml(info)}" aria-label="${escapeHtml(t('chat.previewCode'))}">${escapeHtml(t('chat.preview'))}</button>`
            : ''
        }<button type="button" class="code-copy" data-copy-code aria-label="${escapeHtml(t('chat.copyCode'))}">${escapeHtml(t('common.copy'))}</button></span></div>`;
      const pre = `<pre><code class="hljs${language ? ` language-${language}` : ''}">${body}\n</code></pre>`;
      if (info.toLowerCase() === 'mermaid' && isClosedFence(raw)) return `<div class="code-block diagram-block">${header}${diagramBody(text, pre)}</div>\n`;
      return `<div class="code-block">${header}${pre}</div>\n`;
    },
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens);
      const titleAttribute = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(href)}"${titleAttribute} target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
    },
  },
});

/**
 * Markdown → HTML that is safe for `{@html}`: GFM with line breaks, TeX typeset (markdown-math.ts), raw HTML shown as text,
 * images as links (no third-party requests), links opening in a new tab, and the result sanitized with DOMPurify as the last step.
 * `citations`: the source numbers of the answer, whose `[n]` markers become citation chips.
 * @example <div class="markdown">{@html renderMarkdown(result.data)}</div>
 */
export function renderMarkdown(text: string, citations: ReadonlySet<number> = new Set()): string {
  if (!text) return '';
  let html: string;
  citable = citations;
  try {
    html = markdown.parse(isolateTagLines(text), { async: false });
  } catch {
    html = `<p>${escapeHtml(text)}</p>`;
  } finally {
    citable = new Set();
  }
  // KaTeX's MathML keeps the TeX in an annotation (plain text), which screen readers and copy use.
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target', 'encoding'], ADD_TAGS: ['semantics', 'annotation'] });
}

