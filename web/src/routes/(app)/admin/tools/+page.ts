import { throwPageError } from '#lib/page-error.ts';
import { listTools, listToolTypes } from '#lib/tools/tools-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:agent-tools');
  try {
    const [toolTypes, tools] = await Promise.all([listToolTypes({ fetch }), listTools({ fetch })]);
    return { toolTypes, tools };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
