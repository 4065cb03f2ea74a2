import { boundedSnippet, type AnswerSource } from '../../events/sources';
import { fenceToolContent } from '../fetch/fence-untrusted-content';
import type { SearchHit } from './search-provider';

const MAX_TITLE_CHARS = 200;
const MAX_SNIPPET_CHARS = 600;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

/** Provider text as plain text: tags dropped (Brave marks matches with <strong>), common entities decoded, whitespace collapsed. */
export function plainText(value: string, limit: number): string {
  const plain = value
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|#39|nbsp);/g, (_match, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > limit ? `${plain.slice(0, limit - 1).trimEnd()}…` : plain;
}

/** Only http(s) links reach the model: a `javascript:` or `data:` URL in a result is dropped. */
export function safeLink(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** The hits the model is shown: http(s) only, cleaned, at most `count`. */
export function cleanHits(hits: SearchHit[], count: number): SearchHit[] {
  return hits
    .flatMap((hit) => {
      const url = safeLink(hit.url);
      if (!url) return [];
      const published = hit.published ? plainText(hit.published, 40) : '';
      return [{ url, title: plainText(hit.title, MAX_TITLE_CHARS) || url, snippet: plainText(hit.snippet, MAX_SNIPPET_CHARS), ...(published && { published }) }];
    })
    .slice(0, count);
}

/** A Markdown link label with the characters that would end it escaped. */
function linkLabel(title: string): string {
  return title.replace(/([\\[\]])/g, '\\$1');
}

/** A URL that cannot close the link early: parentheses and spaces percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/ /g, '%20');
}

/** The results numbered from `first` as the answer cites them (`[4]`): linked title, date when given, snippet. */
export function resultsMarkdown(hits: SearchHit[], first = 1): string {
  return hits
    .map((hit, index) => {
      const lines = [`[${first + index}] [${linkLabel(hit.title)}](${linkTarget(hit.url)})`, `   ${hit.url}`];
      if (hit.published) lines.push(`   Published: ${hit.published}`);
      if (hit.snippet) lines.push(`   ${hit.snippet}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/**
 * What the model reads: a header naming the provider and query, then the results fenced as untrusted
 * third-party text (fenceToolContent), since titles and snippets are written by whoever owns the pages.
 */
export function fenceSearchResults(details: { providerLabel: string; query: string; hits: SearchHit[]; note?: string; first?: number }): string {
  const content = details.hits.length > 0 ? resultsMarkdown(details.hits, details.first) : `No results.${details.note ? ` ${details.note}` : ''}`;
  return fenceToolContent({
    source: `a web search (${details.providerLabel})`,
    header: {
      query: details.query.replace(/\s+/g, ' '),
      results: details.hits.length,
      ...(details.hits.length > 0 && { citing: 'cite a result you use by its number in square brackets right after the claim, e.g. [1]; do not invent numbers' }),
    },
    content,
  });
}

/** The results as the answer's sources (the tool output's `metadata.sources`), numbered from `first` like the text. */
export function resultSources(hits: SearchHit[], first = 1): AnswerSource[] {
  return hits.map((hit, index) => ({ index: first + index, kind: 'web', title: boundedSnippet(hit.title, 300), url: hit.url, snippet: boundedSnippet(hit.snippet) }));
}
