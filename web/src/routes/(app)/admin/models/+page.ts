import { apiFetch } from '#lib/api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { ListPage } from '#lib/types.ts';
import type { LlmModel } from './llm-model.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:models');
  try {
    const models = await apiFetch<ListPage<LlmModel>>('/api/models', { fetch });
    return { models: models.items };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
