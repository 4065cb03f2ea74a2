import { listGroups } from '#lib/groups/groups-api.ts';
import { listModels } from '#lib/models/models-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:models');
  try {
    const [models, groups] = await Promise.all([listModels({ fetch }), listGroups({ fetch })]);
    return { models, groups };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
