import { type SQL, sql } from 'drizzle-orm';

/**
 * Search that works for Chinese, Japanese and Korean as well as English, on PostgreSQL and on PGlite
 * alike. PostgreSQL's text search parser has no CJK word breaking ("本周会议纪要" is one token), so
 * CJK terms are matched as substrings with `strpos` (no extension needed; PGlite bundles pg_trgm but
 * it would need loading on both sides for an index, and per-user document counts stay small) and
 * ranked by where and how often they occur. Latin words keep the stemmed full-text ranking.
 */

/** Han, Hiragana, Katakana and Hangul: scripts written without spaces between words. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Whether `text` holds any CJK character. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * The CJK terms of a web-search style query: whitespace-separated words and "quoted phrases",
 * without excluded (`-word`) terms and `or`; CJK punctuation also separates terms.
 * @example cjkTerms('会议纪要 "项目进度" budget') // ['会议纪要', '项目进度']
 */
export function cjkTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of query.matchAll(/(-?)"([^"]+)"|(-?)(\S+)/g)) {
    const excluded = match[1] === '-' || match[3] === '-';
    const text = match[2] ?? match[4] ?? '';
    if (excluded) continue;
    for (const part of text.split(/[\s\p{P}]+/u)) {
      if (part && hasCjk(part)) terms.push(part.toLowerCase());
    }
  }
  return [...new Set(terms)];
}

/**
 * SQL rank of substring hits, comparable to `ts_rank` (0..~1): a term in the title counts most,
 * in tags next, and each occurrence in the content a little, with diminishing returns.
 */
export function substringRank(columns: { title: SQL; tags: SQL; content: SQL }, terms: string[]): SQL<number> {
  const perTerm = terms.map(
    (term) => sql`(case when strpos(lower(${columns.title}), ${term}) > 0 then 0.6 else 0 end
      + case when strpos(lower(${columns.tags}), ${term}) > 0 then 0.3 else 0 end
      + 0.1 * ln(1 + (length(${columns.content}) - length(replace(lower(${columns.content}), ${term}, ''))) / ${term.length}))`,
  );
  return sql<number>`(${sql.join(perTerm, sql` + `)})`;
}

/**
 * A short snippet around the first term found in `text`, every occurrence of every term in
 * **bold** (the same markdown `ts_headline` writes). Returns null when no term occurs.
 */
export function highlightSnippet(text: string, terms: string[], radius = 60): string | null {
  const lower = text.toLowerCase();
  const first = terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0);
  if (first.length === 0) return null;
  const at = Math.min(...first);
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + radius * 2);
  const window = text.slice(start, end).replace(/\s+/g, ' ');
  const pattern = new RegExp(terms.map(escapeRegExp).sort((a, b) => b.length - a.length).join('|'), 'giu');
  const marked = window.replace(pattern, (hit) => `**${hit}**`);
  return `${start > 0 ? '… ' : ''}${marked}${end < text.length ? ' …' : ''}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
