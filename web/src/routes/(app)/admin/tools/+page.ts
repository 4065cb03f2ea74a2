import { apiFetch } from '#lib/api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { AgentTool, ListPage, ToolTypeInfo } from '#lib/types.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:agent-tools');
  try {
    const [toolTypes, tools] = await Promise.all([
      apiFetch<ListPage<ToolTypeInfo>>('/api/tool-types', { fetch }),
      apiFetch<ListPage<AgentTool>>('/api/agent-tools', { fetch }),
    ]);
    return { toolTypes: toolTypes.items, tools: tools.items };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
