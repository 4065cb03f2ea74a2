import { isRecord, SAFE_SEARCH_NUMBER, text, type SearchProvider } from './search-provider';

/**
 * SearXNG: `GET {baseUrl}/search?q=…&format=json`. The instance must allow the json format
 * (settings.yml `search.formats`), or it answers 403. SearXNG has no result count: the list is cut here.
 */
export const searxngProvider: SearchProvider = {
  name: 'searxng',
  label: 'SearXNG',
  needsApiKey: false,
  request: ({ query, config, baseUrl }) => {
    const url = new URL(baseUrl);
    // The instance may live under a path (https://example.org/searx/); an address already ending in /search is kept.
    if (!/\/search\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('safesearch', SAFE_SEARCH_NUMBER[config.safeSearch]);
    if (config.language) url.searchParams.set('language', config.language);
    return { url, method: 'GET', headers: {} };
  },
  read: (answer) => {
    if (!isRecord(answer) || !Array.isArray(answer.results)) return { unexpected: 'it has no "results" list, so it is not a SearXNG search answer' };
    const hits = answer.results.filter(isRecord).flatMap((item) => {
      const url = text(item.url);
      if (!url) return [];
      return [{ url, title: text(item.title) ?? url, snippet: text(item.content) ?? '', published: text(item.publishedDate) }];
    });
    const silent = Array.isArray(answer.unresponsive_engines) ? answer.unresponsive_engines.map((entry) => (Array.isArray(entry) ? String(entry[0]) : String(entry))) : [];
    return { hits, ...(hits.length === 0 && silent.length > 0 && { note: `Engines that did not answer: ${silent.slice(0, 10).join(', ')}.` }) };
  },
  refused: (status) =>
    `The SearXNG instance refused the search (HTTP ${status}). Its settings.yml must allow the JSON format (search: formats: [html, json]); an admin must enable it or fix baseUrl.`,
};
