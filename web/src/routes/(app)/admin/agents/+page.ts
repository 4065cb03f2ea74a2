import { listAgents } from '#lib/agents/agents-api.ts';
import { listModels } from '#lib/models/models-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import { listTools } from '#lib/tools/tools-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:agents');
  try {
    const [agents, models, tools] = await Promise.all([listAgents({ fetch }), listModels({ fetch }), listTools({ fetch })]);
    return { agents, models, tools };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
