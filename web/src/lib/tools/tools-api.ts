/**
 * Tool instances (`/api/agent-tools`), their types (`/api/tool-types`) and execution logs
 * (`/api/tool-logs`), admins only. Types from @agentq/shared/api-types; JSON Schemas are read
 * through the schema form's keyword type, which zod's output type does not spell out.
 */
import type { ListPage, ToolChanges, ToolInput, ToolLogPage, ToolLogStatus, ToolResultView, ToolTypeView, ToolView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { queryString, segment, type FetchOption, type RouteOutput } from '../api-routes.ts';
import type { JsonSchema } from '../components/schema-form/json-schema.ts';

export type { DiscoveredToolView, ToolChanges, ToolInput, ToolLogPage, ToolLogStatus, ToolLogView, ToolResultView, ToolView } from '@agentq/shared/api-types';

/** A registered tool type with its schemas typed for the schema form. */
export type ToolTypeInfo = Omit<ToolTypeView, 'configSchema' | 'inputSchema' | 'secretsSchema'> & {
  configSchema: JsonSchema;
  inputSchema: JsonSchema;
  secretsSchema?: JsonSchema;
};

/** `POST /api/agent-tools/:id/execute`: the result at once, or a run to poll (202). */
export type ExecuteResponse = RouteOutput<'/agent-tools/:id/execute', '$post'> & { result?: ToolResultView; statusUrl?: string; message?: string };

const toolPath = (id: string) => `/api/agent-tools/${segment(id)}`;

export async function listToolTypes(options: FetchOption = {}): Promise<ToolTypeInfo[]> {
  return (await apiFetch<ListPage<ToolTypeInfo>>('/api/tool-types', options)).items;
}

export async function listTools(options: FetchOption = {}): Promise<ToolView[]> {
  return (await apiFetch<ListPage<ToolView>>('/api/agent-tools', options)).items;
}

export function createTool(input: ToolInput): Promise<ToolView> {
  return apiFetch('/api/agent-tools', { method: 'POST', json: input });
}

export function updateTool(id: string, changes: ToolChanges): Promise<ToolView> {
  return apiFetch(toolPath(id), { method: 'PUT', json: changes });
}

export async function deleteTool(id: string): Promise<void> {
  await apiFetch(toolPath(id), { method: 'DELETE' });
}

/** MCP/OpenAPI: asks the server again what it offers. */
export function refreshToolDiscovery(id: string): Promise<ToolView> {
  return apiFetch(`${toolPath(id)}/refresh`, { method: 'POST' });
}

/**
 * Runs a tool by hand. `tool` picks a discovered tool of an MCP/OpenAPI instance; `confirm` is the
 * admin's go-ahead for a call that needs approval.
 * @throws {ApiError} code `confirmation_required` when the call needs that go-ahead.
 */
export function executeTool(id: string, body: { input: unknown; tool?: string; confirm?: boolean }, options: { signal?: AbortSignal } = {}): Promise<ExecuteResponse> {
  return apiFetch(`${toolPath(id)}/execute`, { ...options, method: 'POST', json: body });
}

export type ToolLogQuery = { toolId?: string; status?: ToolLogStatus | ''; from?: string; to?: string; runId?: string; limit?: number; cursor?: string | null };

/** Execution logs, newest first; `nextCursor` fetches the next page. */
export function listToolLogs(query: ToolLogQuery, options: FetchOption = {}): Promise<ToolLogPage> {
  return apiFetch(`/api/tool-logs${queryString(query)}`, options);
}
