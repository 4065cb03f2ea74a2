import { z } from 'zod';

/**
 * Sources of an answer (citations): the knowledge passages, web search results and fetched pages its
 * tool calls returned, in each call's `metadata.sources`. Numbered across the whole answer (the run),
 * so `[n]` in its text names one source; the text the model read carries the same numbers.
 * Zod only: the web app reads them from stored tool outputs, the API's exports too.
 */

/** Most characters of a source's passage or snippet kept in the tool output (and shown in the UI). */
export const MAX_SOURCE_SNIPPET_CHARS = 1200;
/** Most characters of a source's title. */
export const MAX_SOURCE_TITLE_CHARS = 300;

/** An absolute http(s) URL (a source's URL is opened by a click: no other scheme is kept). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export const answerSourceSchema = z.object({
  /** The number the answer cites it by, `[index]`; unique in one answer. */
  index: z.number().int().min(1).max(10_000),
  /** `knowledge`: a passage of a knowledge base file; `web`: a search result or a fetched page. */
  kind: z.enum(['knowledge', 'web']),
  /** The file name (knowledge) or the page title (web; its address when it has none). */
  title: z.string().max(MAX_SOURCE_TITLE_CHARS),
  url: z.string().max(4000).refine(isHttpUrl, 'Must be an http(s) URL').optional(),
  knowledgeBaseId: z.string().max(100).optional(),
  fileId: z.string().max(100).optional(),
  /** The passage's position in its file, from 0 (knowledge). */
  position: z.number().int().min(0).optional(),
  /** The passage (knowledge), the result's snippet or the start of the page (web), at most MAX_SOURCE_SNIPPET_CHARS. */
  snippet: z.string().max(MAX_SOURCE_SNIPPET_CHARS + 1),
});
export type AnswerSource = z.infer<typeof answerSourceSchema>;

/**
 * What a source tool reserves its numbers from: `reserve(count)` returns the first of `count` numbers
 * no other source of the same answer has. Supplied by the worker per run; a call outside a chat run
 * has none and numbers from 1.
 * @example const first = context.sources?.reserve(passages.length) ?? 1;
 */
export type SourceNumbering = { reserve: (count: number) => number };

/** `text` cut to `limit` characters (whitespace runs collapsed), with an ellipsis when cut. */
export function boundedSnippet(text: string, limit = MAX_SOURCE_SNIPPET_CHARS): string {
  const plain = text.replace(/\s+/g, ' ').trim();
  return plain.length > limit ? `${plain.slice(0, limit - 1).trimEnd()}…` : plain;
}

// A streaming answer's parts are read again on every update; an ended call's output never changes.
const parsedOutputs = new WeakMap<object, AnswerSource[]>();

/** The sources in one tool output (`{ metadata: { sources } }`); anything malformed is left out. */
export function sourcesOfOutput(output: unknown): AnswerSource[] {
  const sources = (output as { metadata?: { sources?: unknown } } | null | undefined)?.metadata?.sources;
  if (!Array.isArray(sources)) return [];
  const known = parsedOutputs.get(sources);
  if (known) return known;
  const parsed = sources.flatMap((source) => {
    const checked = answerSourceSchema.safeParse(source);
    return checked.success ? [checked.data] : [];
  });
  parsedOutputs.set(sources, parsed);
  return parsed;
}

type MessagePart = { type: string; state?: unknown; output?: unknown };

/** The sources an answer's tool calls returned (the message's UI parts), by number; a number seen twice keeps its first source. */
export function sourcesOfParts(parts: readonly MessagePart[]): AnswerSource[] {
  const byIndex = new Map<number, AnswerSource>();
  for (const part of parts) {
    if (!(part.type.startsWith('tool-') || part.type === 'dynamic-tool') || part.state !== 'output-available') continue;
    for (const source of sourcesOfOutput(part.output)) if (!byIndex.has(source.index)) byIndex.set(source.index, source);
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/** The highest source number in these tool outputs (0 when none): where a resumed run's numbering continues. */
export function highestSourceIndex(outputs: Iterable<unknown>): number {
  let highest = 0;
  for (const output of outputs) for (const source of sourcesOfOutput(output)) highest = Math.max(highest, source.index);
  return highest;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CITATION_GROUP = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/g;

/**
 * The numbers `text` cites as `[n]` or `[n, m]`, outside fenced code blocks and inline code, in order of
 * first appearance. A `[n](url)` link is not a citation.
 */
export function citedNumbers(text: string): number[] {
  const seen = new Set<number>();
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(CITATION_GROUP)) for (const number of match[1]!.split(',')) seen.add(Number(number.trim()));
  }
  return [...seen];
}

/**
 * The sources an answer shows under it: the ones its text cites (those that exist), or, when it cites
 * none, every source its tools returned, by number.
 */
export function shownSources(sources: readonly AnswerSource[], text: string): AnswerSource[] {
  const cited = new Set(citedNumbers(text));
  const used = sources.filter((source) => cited.has(source.index));
  return used.length > 0 ? used : [...sources];
}
