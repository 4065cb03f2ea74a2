import { isRecord, refusedKeyMessage, text, type SearchProvider } from './search-provider';

/** Brave Search API: `GET {baseUrl}?q=…&count=…` with the key in `X-Subscription-Token`; results under `web.results`. */
export const braveProvider: SearchProvider = {
  name: 'brave',
  label: 'Brave Search',
  needsApiKey: true,
  request: ({ query, count, config, apiKey, baseUrl }) => {
    const url = new URL(baseUrl);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(count));
    url.searchParams.set('safesearch', config.safeSearch);
    if (config.language) url.searchParams.set('search_lang', config.language);
    return { url, method: 'GET', headers: { 'x-subscription-token': apiKey ?? '' } };
  },
  read: (answer) => {
    // A search with no web results has no `web` section at all.
    if (!isRecord(answer) || (answer.type !== 'search' && !('web' in answer))) return { unexpected: 'it is not a Brave web search answer (no "type": "search" and no "web" section)' };
    if (answer.web === undefined) return { hits: [] };
    if (!isRecord(answer.web) || !Array.isArray(answer.web.results)) return { unexpected: 'its "web" section has no "results" list' };
    const hits = answer.web.results.filter(isRecord).flatMap((item) => {
      const url = text(item.url);
      if (!url) return [];
      return [{ url, title: text(item.title) ?? url, snippet: text(item.description) ?? '', published: text(item.page_age) ?? text(item.age) }];
    });
    return { hits };
  },
  refused: (status) => refusedKeyMessage('Brave Search', status),
};
