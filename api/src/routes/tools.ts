import { enqueue, JobWaitTimeoutError } from '@agentq/shared/queues';
import {
  callsHaveNoEffect,
  changedFields,
  createTool,
  createToolInputSchema,
  createToolRun,
  deleteTool,
  discoversTools,
  draftToolRun,
  findExpandedTool,
  getRun,
  getTool,
  refreshToolDiscovery,
  listToolLogs,
  listTools,
  prepareManualExecution,
  recordExecutionConfirmation,
  storeToolRunDraft,
  toolLogQuerySchema,
  toToolView,
  updateTool,
  updateToolInputSchema,
} from '@agentq/shared/services';
import { describeToolTypes, executionTimeoutMs, getToolType } from '@agentq/shared/tools';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { ApiError, validationFailed } from '../errors';
import { currentUser, requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const executeBody = z.object({
  input: z.unknown().default({}),
  /** For an MCP/OpenAPI instance: the discovered tool to run (its server name or `<slug>__<name>`). */
  tool: z.string().min(1).max(200).optional(),
  /** Required (true) when the call needs approval: the admin confirms running it without one. */
  confirm: z.boolean().optional(),
});
const executeQuery = z.object({ async: z.enum(['1', 'true', '0', 'false']).optional() });
/** Beyond the tool's own timeout, time for queueing and the round trip through Redis. */
const EXECUTE_WAIT_MARGIN_MS = 5_000;

export const toolTypeRoutes = new Hono<AppEnv>().get(
  '/',
  describeRoute({ tags: ['tools'], summary: 'Every registered tool type with its config and input JSON Schemas and defaults' }),
  requireAdmin,
  (c) => c.json({ items: describeToolTypes() }),
);

function discoveryOptions(c: Context<AppEnv>) {
  const { appSecret, allowPrivateNetworks, mcpStdioCommands } = c.get('config');
  return { appSecret, allowPrivateNetworks: allowPrivateNetworks ?? false, services: { mcpStdioCommands: mcpStdioCommands ?? [] } };
}

function view(c: Context<AppEnv>, tool: Parameters<typeof toToolView>[0]) {
  return toToolView(tool, { appSecret: c.get('config').appSecret });
}

export const agentToolRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['tools'], summary: 'List tool instances (by sort order)' }), async (c) =>
    c.json({ items: (await listTools(c.get('db'))).map((tool) => view(c, tool)) }),
  )
  .post(
    '/',
    describeRoute({ tags: ['tools'], summary: 'Create a tool instance; config is validated against its type. MCP/OpenAPI instances discover their tools right away (a failure is reported in discoveryError).' }),
    validate('json', createToolInputSchema),
    async (c) => {
      let tool = await createTool(c.get('db'), c.req.valid('json'), { appSecret: c.get('config').appSecret, actorId: currentUser(c).id });
      await audit(c, { action: 'tool.create', targetType: 'tool', targetId: tool.id, details: { slug: tool.slug, type: tool.type } });
      if (discoversTools(tool.type)) tool = (await refreshToolDiscovery(c.get('db'), tool, discoveryOptions(c))).tool;
      return c.json(view(c, tool), 201);
    },
  )
  .get('/:id', describeRoute({ tags: ['tools'], summary: 'Get a tool instance with its input JSON Schema (and discovered tools for MCP/OpenAPI)' }), validate('param', idParam), async (c) =>
    c.json(view(c, await getTool(c.get('db'), c.req.valid('param').id))),
  )
  .put(
    '/:id',
    describeRoute({ tags: ['tools'], summary: 'Update a tool instance (its type cannot change); a changed config or secrets rediscovers MCP/OpenAPI tools' }),
    validate('param', idParam),
    validate('json', updateToolInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      let tool = await updateTool(c.get('db'), c.req.valid('param').id, input, { appSecret: c.get('config').appSecret, actorId: currentUser(c).id });
      // `secrets` names its keys only: their values never reach the log.
      await audit(c, { action: 'tool.update', targetType: 'tool', targetId: tool.id, details: { slug: tool.slug, fields: changedFields(input), ...(input.secrets && { secrets: Object.keys(input.secrets) }) } });
      if (discoversTools(tool.type) && (input.config !== undefined || input.secrets !== undefined)) tool = (await refreshToolDiscovery(c.get('db'), tool, discoveryOptions(c))).tool;
      return c.json(view(c, tool));
    },
  )
  .post(
    '/:id/refresh',
    describeRoute({ tags: ['tools'], summary: "Ask an MCP server / OpenAPI source again what it offers; 502 with the reason when it cannot answer (the last good snapshot is kept)" }),
    validate('param', idParam),
    async (c) => {
      const tool = await getTool(c.get('db'), c.req.valid('param').id);
      if (!discoversTools(tool.type)) throw new ApiError(409, 'not_discoverable', `Tool '${tool.slug}' is a ${tool.type} tool; only MCP and OpenAPI tools discover what they offer`);
      const outcome = await refreshToolDiscovery(c.get('db'), tool, discoveryOptions(c));
      if (outcome.error) throw new ApiError(502, 'discovery_failed', outcome.error, { details: { tool: view(c, outcome.tool) } });
      return c.json(view(c, outcome.tool));
    },
  )
  .delete('/:id', describeRoute({ tags: ['tools'], summary: 'Delete a tool instance' }), validate('param', idParam), async (c) => {
    const tool = await getTool(c.get('db'), c.req.valid('param').id);
    await deleteTool(c.get('db'), tool.id);
    await audit(c, { action: 'tool.delete', targetType: 'tool', targetId: tool.id, details: { slug: tool.slug, type: tool.type } });
    return c.body(null, 204);
  })
  .post(
    '/:id/execute',
    describeRoute({
      tags: ['tools'],
      summary: 'Execute a tool through the queue; waits for the ToolResult, or answers 202 with ?async=1',
      description: 'A call that needs approval (the tool\'s flag, or its type\'s rule such as a document delete) answers 409 confirmation_required unless the body has "confirm": true; the confirmation is audited with who gave it.',
    }),
    validate('param', idParam),
    validate('query', executeQuery),
    validate('json', executeBody),
    async (c) => {
      const tool = await getTool(c.get('db'), c.req.valid('param').id);
      if (!tool.enabled) throw new ApiError(409, 'tool_disabled', `Tool '${tool.slug}' is disabled; enable it to execute it`);
      const body = c.req.valid('json');
      const toolName = body.tool;
      let expanded: ReturnType<typeof findExpandedTool> = null;
      if (getToolType(tool.type).expand) {
        const offered = view(c, tool).discoveredTools?.filter((entry) => entry.allowed).map((entry) => entry.name) ?? [];
        expanded = toolName ? findExpandedTool(tool, toolName) : null;
        if (!expanded) {
          throw validationFailed([{ path: ['tool'], message: `Name one of the tools ${tool.slug} offers: ${offered.join(', ') || '(none discovered yet; refresh the tool)'}` }], `Tool '${tool.slug}' offers several tools; name one in "tool"`);
        }
      }
      const prepared = prepareManualExecution(tool, body.input, expanded?.tool ?? null);
      if (prepared.needsApproval && body.confirm !== true) {
        throw new ApiError(409, 'confirmation_required', `${prepared.reason}. Confirm to run it now without an approval (send "confirm": true).`, {
          details: { needsApproval: true, reason: prepared.reason },
        });
      }
      const isAsync = ['1', 'true'].includes(c.req.valid('query').async ?? '');
      const spec = { userId: currentUser(c).id, toolId: tool.id, input: prepared.input, toolName };
      // A call that waits for its result and can have no effect is stored once, by the worker, with
      // its end (ToolRunDraft); any other is stored now, so the 202 or an approval can name it.
      const draft = !isAsync && !prepared.needsApproval && callsHaveNoEffect(tool) ? draftToolRun(spec) : undefined;
      const run = draft ?? (await createToolRun(c.get('db'), spec));
      if (prepared.needsApproval) {
        await recordExecutionConfirmation(c.get('db'), { actorUserId: currentUser(c).id, toolId: tool.id, runId: run.id, reason: prepared.reason ?? '' });
      }
      // Listening before the job exists: its outcome arrives as a message, with no read of its key.
      const expectation = isAsync ? undefined : await c.get('jobs').expect('toolExecutions', run.id);
      // The run row already names its job (queueJobId = run id): one insert, one queue add.
      const payload = { runId: run.id, toolId: tool.id, ...(draft && { draft: { userId: draft.userId, options: draft.options, createdAt: draft.createdAt.toISOString() } }) };
      try {
        await enqueue(c.get('queues'), 'toolExecutions', 'tool-exec', payload, { jobId: run.id });
      } catch (error) {
        expectation?.cancel();
        throw error;
      }
      if (!expectation) return c.json({ runId: run.id, statusUrl: `/api/runs/${run.id}` }, 202);

      const waitMs = executionTimeoutMs(getToolType(tool.type), tool.config) + EXECUTE_WAIT_MARGIN_MS;
      try {
        const result = await expectation.result(waitMs);
        return c.json({ runId: run.id, result });
      } catch (error) {
        if (error instanceof JobWaitTimeoutError) {
          // The run's URL must answer: a draft its worker has not written yet is stored now.
          if (draft) await storeToolRunDraft(c.get('db'), draft);
          return c.json({ runId: run.id, statusUrl: `/api/runs/${run.id}`, message: 'Still running; poll statusUrl for the result' }, 202);
        }
        // The job failed outright (not a tool failure): report what the run says, if it was stored.
        const failed = await getRun(c.get('db'), run.id).catch(() => undefined);
        throw new ApiError(503, 'execution_failed', failed?.error ?? (error instanceof Error ? error.message : 'Execution failed'));
      }
    },
  );

export const toolLogRoutes = new Hono<AppEnv>().get(
  '/',
  describeRoute({ tags: ['tools'], summary: 'Tool execution logs, newest first; filter by tool, status, run and time range' }),
  requireAdmin,
  validate('query', toolLogQuerySchema),
  async (c) => c.json(await listToolLogs(c.get('db'), c.req.valid('query'))),
);
