import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * Text search that works for English and for CJK on PostgreSQL and on PGlite alike, with no extension.
 * English full-text search (stemmed, `websearch_to_tsquery`) cannot split Chinese or Japanese into
 * words, so every query also matches as case-insensitive substrings (`ILIKE`, each term anywhere):
 * 会议纪要 is found inside 本周会议纪要：讨论了… . Ranking adds the two; highlighting is done here, in
 * JS, as plain segments (never HTML), so the caller can render them safely.
 */

/** The search configuration of every English `tsvector` in the schema. */
export const ENGLISH_SEARCH_CONFIG = 'english';
const englishConfig = sql.raw(`'${ENGLISH_SEARCH_CONFIG}'::regconfig`);

const MAX_TERMS = 8;

/** A query's terms: whitespace-separated words with quotes and web-search operators removed, at most 8. */
export function searchTerms(query: string): string[] {
  const terms = query
    .split(/\s+/)
    .map((term) => term.replace(/^[-+"'“”‘’(]+|[)"'“”‘’]+$/g, '').toLowerCase())
    .filter((term) => term.length > 0 && term !== 'or');
  return [...new Set(terms)].slice(0, MAX_TERMS);
}

/** An `ILIKE` pattern matching `term` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The English query of `websearch_to_tsquery` (words, "quoted phrases", -excluded, or). */
export function englishQuery(query: string): SQL {
  return sql`websearch_to_tsquery(${englishConfig}, ${query})`;
}

/** `vector @@ query`: an English full-text match (stemmed: "meetings" finds "meeting"). */
export function englishMatch(vector: SQLWrapper, query: string): SQL {
  return sql`(${vector} @@ ${englishQuery(query)})`;
}

/** Every term occurs in `text` (case-insensitive substring): what finds CJK words inside a sentence. */
export function containsAllTerms(text: SQLWrapper, terms: readonly string[]): SQL {
  if (terms.length === 0) return sql`false`;
  return sql.join(
    terms.map((term) => sql`(${text} ilike ${containsPattern(term)})`),
    sql` and `,
  );
}

/** `ts_rank` of an English match (0 when it does not match). */
export function englishRank(vector: SQLWrapper, query: string): SQL<number> {
  return sql<number>`ts_rank(${vector}, ${englishQuery(query)})`;
}

/** A piece of highlighted text: `match` pieces are what the query found. */
export type TextSegment = { text: string; match: boolean };

/** Word endings stripped before matching English words, so "meetings" highlights "meeting" like FTS finds it. */
const ENGLISH_SUFFIXES = /(ing|ed|es|s)$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One regular expression for every term: CJK and symbols as substrings, English words by stem. */
function termsPattern(terms: readonly string[]): RegExp | undefined {
  const alternatives = terms
    .filter((term) => term.length > 0)
    .map((term) => {
      if (/^[a-z0-9]+$/i.test(term) && term.length > 4) {
        const stem = term.replace(ENGLISH_SUFFIXES, '');
        return `${escapeRegExp(stem)}[a-z]*`;
      }
      return escapeRegExp(term);
    })
    .sort((a, b) => b.length - a.length);
  return alternatives.length > 0 ? new RegExp(alternatives.join('|'), 'giu') : undefined;
}

/** `text` cut into segments, the matches of `terms` marked. */
export function highlightSegments(text: string, terms: readonly string[]): TextSegment[] {
  const pattern = termsPattern(terms);
  if (!pattern || text.length === 0) return text ? [{ text, match: false }] : [];
  const segments: TextSegment[] = [];
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    if (found[0].length === 0) continue;
    const start = found.index;
    if (start > last) segments.push({ text: text.slice(last, start), match: false });
    segments.push({ text: found[0], match: true });
    last = start + found[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), match: false });
  return segments;
}

/**
 * A short excerpt of `text` around its first match, highlighted: `context` characters either side,
 * whitespace collapsed, "…" where it was cut. Undefined when nothing in `text` matches.
 */
export function highlightSnippet(text: string, terms: readonly string[], context = 60): TextSegment[] | undefined {
  const flat = text.replace(/\s+/g, ' ').trim();
  const pattern = termsPattern(terms);
  const first = pattern ? pattern.exec(flat) : null;
  if (!first) return undefined;
  const start = Math.max(0, first.index - context);
  const end = Math.min(flat.length, first.index + first[0].length + context * 2);
  const excerpt = `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
  return highlightSegments(excerpt, terms);
}
