import { z } from 'zod';
import { isHttpUrl } from '../../events/sources';
import { MAX_TIMEOUT_MS } from '../fetch/fetch-schemas';

export const SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

export const SAFE_SEARCH_LEVELS = ['off', 'moderate', 'strict'] as const;
export type SafeSearchLevel = (typeof SAFE_SEARCH_LEVELS)[number];

/** Most results one call may ask for (Brave's and Tavily's own ceiling). */
export const MAX_RESULTS_LIMIT = 20;

/** Hosted providers' official endpoints, used when `baseUrl` is left empty. */
export const DEFAULT_BASE_URLS: Record<SearchProviderName, string | null> = {
  searxng: null,
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
};

/**
 * Per-instance settings; `parse({})` gives the defaults (Brave at its official endpoint). The API key is
 * not here: it is the write-only secret `apiKey` (see webSearchSecretsSchema).
 */
export const webSearchConfigSchema = z
  .object({
    provider: z
      .enum(SEARCH_PROVIDERS)
      .default('brave')
      .describe('Who answers the searches: "searxng" (a SearXNG instance you run, no key), "brave" (Brave Search API) or "tavily" (Tavily); Brave and Tavily need the apiKey secret.'),
    baseUrl: z
      .string()
      .trim()
      .max(2000)
      .default('')
      .refine((value) => value === '' || isHttpUrl(value), 'Must be an absolute http(s) URL')
      .describe(
        "The provider's address. Required for searxng (the instance's root, e.g. https://searx.example.org); empty for brave and tavily means their official endpoint. A private or loopback address needs FETCH_ALLOW_PRIVATE_NETWORKS.",
      ),
    maxResults: z.number().int().min(1).max(MAX_RESULTS_LIMIT).default(5).describe(`Most results one search returns (1 to ${MAX_RESULTS_LIMIT}); a call may ask for fewer.`),
    safeSearch: z.enum(SAFE_SEARCH_LEVELS).default('moderate').describe('Filtering of adult content: "off", "moderate" or "strict" (SearXNG and Brave; Tavily has no such setting).'),
    language: z
      .string()
      .trim()
      .max(20)
      .regex(/^[A-Za-z0-9-]*$/, 'Use a language code such as "en" or "zh-CN"')
      .default('')
      .describe('Language of the results, passed as is: SearXNG "language" (e.g. "en", "zh-CN"), Brave "search_lang" (e.g. "en", "zh-hans"); empty = the provider\'s default. Tavily ignores it.'),
    timeout: z.number().int().min(1000).max(MAX_TIMEOUT_MS).default(10_000).describe('Milliseconds one search may take (at most 60000).'),
  })
  .superRefine((config, context) => {
    if (config.provider === 'searxng' && config.baseUrl === '') {
      context.addIssue({ code: 'custom', path: ['baseUrl'], message: 'SearXNG needs baseUrl: the address of your instance, e.g. https://searx.example.org' });
    }
  });

export type WebSearchConfig = z.output<typeof webSearchConfigSchema>;

/** Write-only: the provider's API key, stored encrypted with APP_SECRET and never returned. */
export const webSearchSecretsSchema = z.object({
  apiKey: z.string().trim().min(1).max(1000).optional().describe('The API key of Brave Search or Tavily (SearXNG needs none).'),
});

export type WebSearchSecrets = z.output<typeof webSearchSecretsSchema>;

/** What the model sends. */
export const webSearchInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1)
    .max(400)
    .describe('What to search the web for: a few specific keywords or a short question, e.g. "PostgreSQL 17 release date". Add a site, product or year to narrow it.'),
  count: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional().describe("How many results to return (default: the tool's maximum; never more)."),
});

export type WebSearchInput = z.output<typeof webSearchInputSchema>;
