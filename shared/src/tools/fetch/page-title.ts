/** Characters of a document searched for its `<title>`: it belongs in the head, near the start. */
const TITLE_SEARCH_CHARS = 64 * 1024;
const TITLE = /<title(?:\s[^>]*)?>([^<]{1,2000})<\/title\s*>/i;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** `&amp;`, `&#39;`, `&#x2014;` and the like as the characters they stand for; an unknown one stays as written. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** An HTML page's `<title>` as plain text (entities decoded, whitespace collapsed), or undefined when it has none. */
export function pageTitle(html: string): string | undefined {
  const match = TITLE.exec(html.slice(0, TITLE_SEARCH_CHARS));
  const title = match?.[1] === undefined ? undefined : decodeEntities(match[1]).replace(/\s+/g, ' ').trim();
  return title || undefined;
}
