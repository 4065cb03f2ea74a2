import { listModels } from '#lib/models/models-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:models');
  try {
    return { models: await listModels({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
