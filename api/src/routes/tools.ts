import { enqueue, JobWaitTimeoutError } from '@agentq/shared/queues';
import {
  createTool,
  createToolInputSchema,
  createToolRun,
  deleteTool,
  getRun,
  getTool,
  listToolLogs,
  listTools,
  prepareManualExecution,
  recordExecutionConfirmation,
  toolLogQuerySchema,
  toToolView,
  updateTool,
  updateToolInputSchema,
} from '@agentq/shared/services';
import { describeToolTypes, executionTimeoutMs, getToolType } from '@agentq/shared/tools';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const executeBody = z.object({
  input: z.unknown().default({}),
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

export const agentToolRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['tools'], summary: 'List tool instances (by sort order)' }), async (c) =>
    c.json({ items: (await listTools(c.var.db)).map(toToolView) }),
  )
  .post('/', describeRoute({ tags: ['tools'], summary: 'Create a tool instance; config is validated against its type' }), validate('json', createToolInputSchema), async (c) =>
    c.json(toToolView(await createTool(c.var.db, c.req.valid('json'))), 201),
  )
  .get('/:id', describeRoute({ tags: ['tools'], summary: 'Get a tool instance with its input JSON Schema' }), validate('param', idParam), async (c) =>
    c.json(toToolView(await getTool(c.var.db, c.req.valid('param').id))),
  )
  .put('/:id', describeRoute({ tags: ['tools'], summary: 'Update a tool instance (its type cannot change)' }), validate('param', idParam), validate('json', updateToolInputSchema), async (c) =>
    c.json(toToolView(await updateTool(c.var.db, c.req.valid('param').id, c.req.valid('json')))),
  )
  .delete('/:id', describeRoute({ tags: ['tools'], summary: 'Delete a tool instance' }), validate('param', idParam), async (c) => {
    await deleteTool(c.var.db, c.req.valid('param').id);
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
      const tool = await getTool(c.var.db, c.req.valid('param').id);
      if (!tool.enabled) throw new ApiError(409, 'tool_disabled', `Tool '${tool.slug}' is disabled; enable it to execute it`);
      const body = c.req.valid('json');
      const prepared = prepareManualExecution(tool, body.input);
      if (prepared.needsApproval && body.confirm !== true) {
        throw new ApiError(409, 'confirmation_required', `${prepared.reason}. Confirm to run it now without an approval (send "confirm": true).`, {
          details: { needsApproval: true, reason: prepared.reason },
        });
      }
      const run = await createToolRun(c.var.db, { userId: currentUser(c).id, toolId: tool.id, input: prepared.input });
      if (prepared.needsApproval) {
        await recordExecutionConfirmation(c.var.db, { actorUserId: currentUser(c).id, toolId: tool.id, runId: run.id, reason: prepared.reason ?? '' });
      }
      // The run row already names its job (queueJobId = run id): one insert, one queue add.
      const job = await enqueue(c.var.queues, 'toolExecutions', 'tool-exec', { runId: run.id }, { jobId: run.id });
      const isAsync = ['1', 'true'].includes(c.req.valid('query').async ?? '');
      if (isAsync) return c.json({ runId: run.id, statusUrl: `/api/runs/${run.id}` }, 202);

      const waitMs = executionTimeoutMs(getToolType(tool.type), tool.config) + EXECUTE_WAIT_MARGIN_MS;
      try {
        const result = await c.var.jobs.wait('toolExecutions', job.id ?? run.id, waitMs);
        return c.json({ runId: run.id, result });
      } catch (error) {
        if (error instanceof JobWaitTimeoutError) {
          return c.json({ runId: run.id, statusUrl: `/api/runs/${run.id}`, message: 'Still running; poll statusUrl for the result' }, 202);
        }
        // The job failed outright (not a tool failure): report what the run says.
        const failed = await getRun(c.var.db, run.id);
        throw new ApiError(503, 'execution_failed', failed.error ?? (error instanceof Error ? error.message : 'Execution failed'));
      }
    },
  );

export const toolLogRoutes = new Hono<AppEnv>().get(
  '/',
  describeRoute({ tags: ['tools'], summary: 'Tool execution logs, newest first; filter by tool, status, run and time range' }),
  requireAdmin,
  validate('query', toolLogQuerySchema),
  async (c) => c.json(await listToolLogs(c.var.db, c.req.valid('query'))),
);
