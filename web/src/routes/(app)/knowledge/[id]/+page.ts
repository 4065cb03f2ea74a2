import { getKnowledgeBase } from '#lib/knowledge/knowledge-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, params, url, depends }) => {
  depends('app:knowledge-base');
  try {
    return { base: await getKnowledgeBase(params.id, { fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
