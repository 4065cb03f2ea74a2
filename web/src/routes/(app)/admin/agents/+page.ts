import { listAgents } from '#lib/agents/agents-api.ts';
import { listGroups } from '#lib/groups/groups-api.ts';
import { listModels } from '#lib/models/models-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import { listTools } from '#lib/tools/tools-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:agents');
  try {
    const [agents, models, tools, groups] = await Promise.all([listAgents({ fetch }), listModels({ fetch }), listTools({ fetch }), listGroups({ fetch })]);
    return { agents, models, tools, groups };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
