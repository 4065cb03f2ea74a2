import { braveProvider } from './brave';
import type { SearchProvider } from './search-provider';
import { searxngProvider } from './searxng';
import { tavilyProvider } from './tavily';
import type { SearchProviderName } from './web-search-schemas';

/** Every provider by its config name: a provider missing here fails to compile. */
export const SEARCH_PROVIDER_MODULES = {
  searxng: searxngProvider,
  brave: braveProvider,
  tavily: tavilyProvider,
} satisfies Record<SearchProviderName, SearchProvider>;
