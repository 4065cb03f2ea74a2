import { listKnowledgeBases } from '#lib/knowledge/knowledge-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:knowledge');
  try {
    return { bases: await listKnowledgeBases({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
