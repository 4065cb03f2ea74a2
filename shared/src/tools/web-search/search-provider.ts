import type { SafeSearchLevel, SearchProviderName, WebSearchConfig } from './web-search-schemas';

/** One result as the model sees it, whatever provider found it. */
export type SearchHit = {
  title: string;
  url: string;
  snippet: string;
  /** As the provider gives it (an ISO date, or Brave's "2 days ago"). */
  published?: string;
};

/** The HTTP request a provider needs for one search. */
export type ProviderRequest = {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
};

/** What a provider needs to build its request. */
export type SearchRequestOptions = {
  query: string;
  count: number;
  config: WebSearchConfig;
  apiKey: string | undefined;
};

/**
 * One search backend: how to ask it (`request`) and how to read its answer (`read`). `read` returns the
 * results, an empty list when there are none, or a sentence saying what in the answer was unexpected.
 */
export type SearchProvider = {
  name: SearchProviderName;
  /** Shown to the model and the admin: "Brave Search". */
  label: string;
  needsApiKey: boolean;
  request: (options: SearchRequestOptions & { baseUrl: string }) => ProviderRequest;
  read: (answer: unknown) => { hits: SearchHit[]; note?: string } | { unexpected: string };
  /** What a 401/403 means for this provider; the default says the API key was refused. */
  refused?: (status: number) => string;
};

/** The refusal of a keyed provider: never names or echoes the key. */
export function refusedKeyMessage(label: string, status: number): string {
  return `The search provider refused the API key (HTTP ${status} from ${label}). An admin must check the API key of this web-search tool; retrying will not help.`;
}

/** SearXNG's safesearch numbers: 0 off, 1 moderate, 2 strict. */
export const SAFE_SEARCH_NUMBER: Record<SafeSearchLevel, string> = { off: '0', moderate: '1', strict: '2' };

/** A string field of an answer's item, or undefined for anything else (numbers, null, objects). */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
