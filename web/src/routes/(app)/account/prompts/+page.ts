import { listPrompts } from '#lib/prompts/prompts-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:prompts');
  try {
    return { prompts: await listPrompts({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
