import { isRecord, refusedKeyMessage, text, type SearchProvider } from './search-provider';

/** Tavily: `POST {baseUrl}` with a JSON body and `Authorization: Bearer <key>`; results under `results`. */
export const tavilyProvider: SearchProvider = {
  name: 'tavily',
  label: 'Tavily',
  needsApiKey: true,
  request: ({ query, count, apiKey, baseUrl }) => ({
    url: new URL(baseUrl),
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, max_results: count, search_depth: 'basic', topic: 'general', include_answer: false, include_raw_content: false, include_images: false }),
  }),
  read: (answer) => {
    if (!isRecord(answer) || !Array.isArray(answer.results)) return { unexpected: 'it has no "results" list, so it is not a Tavily search answer' };
    const hits = answer.results.filter(isRecord).flatMap((item) => {
      const url = text(item.url);
      if (!url) return [];
      return [{ url, title: text(item.title) ?? url, snippet: text(item.content) ?? '', published: text(item.published_date) }];
    });
    return { hits };
  },
  refused: (status) => refusedKeyMessage('Tavily', status),
};
