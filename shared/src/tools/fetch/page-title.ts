/** Characters of a document searched for its `<title>`: it belongs in the head, near the start. */
const TITLE_SEARCH_CHARS = 64 * 1024;
const TITLE = /<title(?:\s[^>]*)?>([^<]{1,2000})<\/title\s*>/i;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

/** An HTML page's `<title>` as plain text (common entities decoded, whitespace collapsed), or undefined when it has none. */
export function pageTitle(html: string): string | undefined {
  const match = TITLE.exec(html.slice(0, TITLE_SEARCH_CHARS));
  const title = match?.[1]
    ?.replace(/&(amp|lt|gt|quot|apos|#39|nbsp);/g, (_match, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return title || undefined;
}
