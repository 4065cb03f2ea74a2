import TurndownService from 'turndown';

/** Turndown's input cap: above this the conversion alone can hold the event loop for seconds. */
export const MAX_HTML_CONVERSION_CHARS = 1_048_576;

/**
 * Nesting depth above which we skip turndown. Its DOM parser (domino) is quadratic in depth
 * (10,000 nested divs parse in ~1 s, 50,000 in minutes) and turndown itself recurses, so a
 * hostile page could block the worker long enough to lose its job lock.
 */
export const MAX_HTML_NESTING_DEPTH = 400;

export type HtmlConversion = {
  text: string;
  /** `text-fallback` when the page was too deep or too large for turndown and tags were stripped instead. */
  method: 'turndown' | 'text-fallback';
};

// Elements that never have children, and elements whose end tag may be omitted: neither adds
// to the depth a parser really builds, so counting them would reject ordinary pages.
const VOID_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]);
const OPTIONAL_END_ELEMENTS = new Set([
  'html', 'head', 'body', 'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot',
  'colgroup', 'caption', 'rb', 'rt', 'rtc', 'rp',
]);
// Their content is not markup (or not wanted): skip to the matching end tag.
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title', 'noscript', 'template', 'xmp', 'iframe', 'noembed', 'noframes']);
// Dropped with their content: code, styling and embedded documents are noise to the model.
const DROPPED_ELEMENTS = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas']);

let converter: TurndownService | undefined;

function getConverter(): TurndownService {
  // Built once: the instance only holds its rule configuration, no per-conversion state.
  converter ??= new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).remove(
    (node) => DROPPED_ELEMENTS.has(node.nodeName.toLowerCase()),
  );
  return converter;
}

/**
 * Converts HTML to Markdown with turndown, guarding the event loop: input is capped at
 * `MAX_HTML_CONVERSION_CHARS` and pathologically nested pages fall back to plain text.
 */
export function htmlToMarkdown(html: string): HtmlConversion {
  const input = html.length > MAX_HTML_CONVERSION_CHARS ? html.slice(0, MAX_HTML_CONVERSION_CHARS) : html;
  if (measureNestingDepth(input) > MAX_HTML_NESTING_DEPTH) return { text: htmlToPlainText(input), method: 'text-fallback' };
  try {
    return { text: getConverter().turndown(input).trim(), method: 'turndown' };
  } catch {
    // Turndown recurses per element; a stack overflow on an odd page should not lose the content.
    return { text: htmlToPlainText(input), method: 'text-fallback' };
  }
}

type Tag = { name: string; closing: boolean; selfClosing: boolean; end: number };

/**
 * Finds the first '>' at or after a position, remembering the last answer: the scanners only
 * move forward, so a run of '<' before one distant '>' costs one search, not one each.
 */
function createCloseFinder(html: string): (from: number) => number {
  let searchedFrom = Number.POSITIVE_INFINITY;
  let found = -1;
  return (from) => {
    if (from >= searchedFrom && (found === -1 || found >= from)) return found;
    searchedFrom = from;
    found = html.indexOf('>', from);
    return found;
  };
}

/** Reads the tag starting at `start` (which holds '<'); null when it is not a tag. */
function readTag(html: string, start: number, findClose: (from: number) => number): Tag | null {
  let position = start + 1;
  const closing = html[position] === '/';
  if (closing) position += 1;
  const nameStart = position;
  while (position < html.length) {
    const code = html.charCodeAt(position);
    const isNameChar = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45;
    if (!isNameChar) break;
    position += 1;
  }
  if (position === nameStart) return null;
  const close = findClose(position);
  if (close === -1) return null;
  const name = html.slice(nameStart, position).toLowerCase();
  return { name, closing, selfClosing: html[close - 1] === '/', end: close + 1 };
}

/**
 * Estimates the maximum element nesting depth in one linear pass (no regex backtracking):
 * opening tags push, closing tags pop, void and optional-end elements are ignored.
 */
export function measureNestingDepth(html: string): number {
  let depth = 0;
  let maxDepth = 0;
  let position = html.indexOf('<');
  const lower = html.toLowerCase();
  const findClose = createCloseFinder(html);
  while (position !== -1 && position < html.length) {
    if (lower.startsWith('<!--', position)) {
      const end = html.indexOf('-->', position + 4);
      if (end === -1) break;
      position = html.indexOf('<', end + 3);
      continue;
    }
    const tag = readTag(html, position, findClose);
    if (!tag) {
      position = html.indexOf('<', position + 1);
      continue;
    }
    let next = tag.end;
    if (!VOID_ELEMENTS.has(tag.name) && !OPTIONAL_END_ELEMENTS.has(tag.name) && !tag.selfClosing) {
      if (tag.closing) depth = Math.max(0, depth - 1);
      else {
        depth += 1;
        maxDepth = Math.max(maxDepth, depth);
        if (RAW_TEXT_ELEMENTS.has(tag.name)) {
          next = skipRawText(lower, html, tag.name, tag.end);
          depth -= 1;
        }
      }
    }
    position = html.indexOf('<', next);
  }
  return maxDepth;
}

/**
 * Skips past `</name ...>` from `from`; the end of input when it never closes. Takes a
 * lower-cased copy made once by the caller, so many raw-text elements stay linear.
 */
function skipRawText(lower: string, html: string, name: string, from: number): number {
  const end = lower.indexOf(`</${name}`, from);
  if (end === -1) return html.length;
  const close = html.indexOf('>', end);
  return close === -1 ? html.length : close + 1;
}

const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tr',
  'ul',
]);

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Strips tags in one linear pass, keeping block boundaries as line breaks; the fallback when turndown is unsafe. */
export function htmlToPlainText(html: string): string {
  const lower = html.toLowerCase();
  const findClose = createCloseFinder(html);
  const pieces: string[] = [];
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    if (open === -1) {
      pieces.push(html.slice(position));
      break;
    }
    pieces.push(html.slice(position, open));
    if (lower.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      position = end === -1 ? html.length : end + 3;
      continue;
    }
    const tag = readTag(html, open, findClose);
    if (!tag) {
      const close = findClose(open + 1);
      // A '<' that starts no tag is text ("a < b"); a '<!doctype' or '<?xml' is dropped.
      if (close === -1 || !/[!?]/.test(html[open + 1] ?? '')) {
        pieces.push('<');
        position = open + 1;
      } else position = close + 1;
      continue;
    }
    position = tag.end;
    if (!tag.closing && (RAW_TEXT_ELEMENTS.has(tag.name) || tag.name === 'svg')) {
      position = tag.name === 'title' ? position : skipRawText(lower, html, tag.name, position);
      continue;
    }
    if (BLOCK_ELEMENTS.has(tag.name)) pieces.push('\n');
  }
  return decodeEntities(pieces.join(''))
    .replace(/[ \t\f\r]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const codePoint = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
