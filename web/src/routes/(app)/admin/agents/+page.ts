import { apiFetch } from '#lib/api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { AgentTool, ListPage } from '#lib/types.ts';
import type { Agent, ModelOption } from './agent.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:agents');
  try {
    const [agents, models, tools] = await Promise.all([
      apiFetch<ListPage<Agent>>('/api/agents', { fetch }),
      apiFetch<ListPage<ModelOption>>('/api/models', { fetch }),
      apiFetch<ListPage<AgentTool>>('/api/agent-tools', { fetch }),
    ]);
    return { agents: agents.items, models: models.items, tools: tools.items };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
