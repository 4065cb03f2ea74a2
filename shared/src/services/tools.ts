import { and, asc, count, desc, eq, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { preparedQuery } from '../db/prepared-query';
import { commitOnLane, setSynchronousCommit } from '../db/commit-lane';
import { agentToolLogs, agentTools, auditEvents, RETRY_INTERRUPTED, runs, TOOL_LOG_STATUSES, toolCalls, type RunStatus, type ToolLogStatus } from '../db/schema';
import { newId } from '../ids';
import { effectOf, type ExpandedTool, type ToolContext, type ToolEffect, type ToolResult } from '../tools/define-tool-type';
import { discoveryOf, expandToolRows } from '../tools/model-tools';
import { checkToolSecrets, openToolSecrets, sealToolSecrets, secretPaths, validateToolSecrets } from './tool-secrets';
import { InvalidToolConfigError } from '../tools/errors';
import { executionTimeoutMs, getToolType, inputJsonSchema, toolTypeConfigSchema } from '../tools/registry';
import { findInAgentConfig } from './agent-config';
import { invalidateConfig } from './config-cache';
import { ConflictError, InvalidInputError, isDependencyDown, isUniqueViolation, NotFoundError } from './errors';
import { draftToolRunSettlement, toolRunSettlement, toRunErrorText } from './run-lifecycle';
import type { ToolRunDraft } from './runs';
import { beginToolCall, completedToolCallEntry, completeToolCall, interruptToolCall, toolCallCompletion, toolCallIdempotencyKey, WorkerStoppingError } from './tool-journal';

export type AgentTool = typeof agentTools.$inferSelect;

/** A slug is the LLM tool name: OpenAI-compatible providers accept ^[a-zA-Z0-9_-]{1,64}$. */
export const toolSlugSchema = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[a-zA-Z0-9_-]+$/, 'Use letters, digits, "_" and "-" only (it becomes the tool name the model calls)');

const toolFields = {
  name: z.string().trim().min(1).max(50),
  slug: toolSlugSchema,
  description: z.string().max(2000),
  enabled: z.boolean(),
  needsApproval: z.boolean(),
  approvalTimeoutMs: z.number().int().min(1000).max(7 * 24 * 3600 * 1000).nullable(),
  sortOrder: z.number().int().min(-1_000_000).max(1_000_000),
  /** A non-idempotent call interrupted by a crash: report it to the model ("never"), or re-send it with the same Idempotency-Key. */
  retryInterrupted: z.enum(RETRY_INTERRUPTED),
  /** Write-only values of types with a `secretsSchema` (auth headers, API keys); replaced as a whole when sent. */
  secrets: z.record(z.string(), z.unknown()),
};

const toolFieldsSchema = z.object({
  ...toolFields,
  description: toolFields.description.default(''),
  enabled: toolFields.enabled.default(true),
  needsApproval: toolFields.needsApproval.default(false),
  approvalTimeoutMs: toolFields.approvalTimeoutMs.default(null),
  sortOrder: toolFields.sortOrder.default(0),
  retryInterrupted: toolFields.retryInterrupted.default('never'),
  secrets: toolFields.secrets.optional(),
});

/** POST /api/agent-tools: the common fields plus `{ type, config }` checked against the registry. */
export const createToolInputSchema = z.intersection(toolFieldsSchema, toolTypeConfigSchema);
export type CreateToolInput = z.infer<typeof createToolInputSchema>;

/** PUT /api/agent-tools/:id: any subset; `config` is validated against the tool's existing type. */
// Built from the fields without defaults: zod keeps defaults inside .partial(), which would reset omitted fields.
export const updateToolInputSchema = z.object(toolFields).partial().extend({ config: z.record(z.string(), z.unknown()).optional() });
export type UpdateToolInput = z.infer<typeof updateToolInputSchema>;

function slugTaken(slug: string) {
  return new ConflictError(`A tool with slug '${slug}' already exists`, { slug });
}

/** Validates a config for a type; issues carry paths under `config`. */
export function validateToolConfig(type: string, config: unknown): Record<string, unknown> {
  const toolType = getToolType(type);
  const parsed = (toolType.configSchema as z.ZodType).safeParse(config ?? {});
  if (!parsed.success) {
    throw new InvalidInputError(
      `Invalid config for tool type '${type}'`,
      parsed.error.issues.map((issue) => ({ path: ['config', ...issue.path], message: issue.message })),
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** A discovered tool as the admin sees it: its model name, whether the config allows it and whether it needs approval. */
export type DiscoveredToolView = { name: string; modelName: string | null; title?: string; description: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown>; effect: string; allowed: boolean; needsApproval: boolean };

/**
 * The row as clients see it: the JSON Schema of its input, the discovered tools of an MCP/OpenAPI
 * instance, and which secrets are set (names only; values are write-only and never leave the server).
 */
export function toToolView(tool: AgentTool, options: { appSecret?: string } = {}) {
  const { secretsEncrypted, ...row } = tool;
  const toolType = getToolType(tool.type);
  let secretsSet: string[] = [];
  try {
    secretsSet = secretPaths(openToolSecrets(tool, options.appSecret));
  } catch {
    secretsSet = secretsEncrypted ? ['(unreadable: re-enter the secrets)'] : [];
  }
  const discovery = discoveryOf(tool);
  let discoveredTools: DiscoveredToolView[] | undefined;
  if (toolType.discover) {
    const offered = new Map(expandToolRows([tool]).map((modelTool) => [modelTool.call?.name, modelTool]));
    discoveredTools = (discovery?.tools ?? []).map((found) => {
      const modelTool = offered.get(found.name);
      return { ...found, call: undefined, modelName: modelTool?.name ?? null, allowed: modelTool !== undefined, needsApproval: tool.needsApproval || (modelTool?.call?.needsApproval ?? false) };
    });
  }
  return { ...row, inputSchema: inputJsonSchema(toolType), secretsSet, ...(discoveredTools && { discoveredTools }) };
}

export async function listTools(db: Database, filter: { enabled?: boolean } = {}): Promise<AgentTool[]> {
  return db
    .select()
    .from(agentTools)
    .where(filter.enabled === undefined ? undefined : eq(agentTools.enabled, filter.enabled))
    .orderBy(asc(agentTools.sortOrder), asc(agentTools.name));
}

/** One tool instance, read through the config cache (the execute route and the worker read it per call). */
export async function getTool(db: Database, id: string): Promise<AgentTool> {
  const tool = await findInAgentConfig(db, (config) => config.tools.find((candidate) => candidate.id === id));
  if (!tool) throw new NotFoundError('Tool', id);
  return tool;
}

/** Where secrets are encrypted (the API passes APP_SECRET), and who saves the tool (a type's `checkConfig` judges for them). */
export type ToolWriteOptions = { appSecret?: string; actorId?: string };

/** The type's `checkConfig` for the admin saving the instance; issues come back under `config`. Skipped without an actor (seeds, tests). */
async function checkToolConfig(db: Database, type: string, config: Record<string, unknown>, previousConfig: Record<string, unknown> | undefined, options: ToolWriteOptions): Promise<void> {
  const toolType = getToolType(type);
  if (!toolType.checkConfig || !options.actorId) return;
  const previous = previousConfig === undefined ? undefined : (toolType.configSchema as z.ZodType).safeParse(previousConfig).data;
  const issues = await toolType.checkConfig(config, { db, actorId: options.actorId, previousConfig: previous });
  if (issues.length > 0) throw new InvalidInputError(`Invalid config for tool type '${type}'`, issues.map((issue) => ({ path: ['config', ...issue.path], message: issue.message })));
}

export async function createTool(db: Database, input: Omit<CreateToolInput, 'retryInterrupted'> & { retryInterrupted?: CreateToolInput['retryInterrupted'] }, options: ToolWriteOptions = {}): Promise<AgentTool> {
  const { secrets, ...fields } = input;
  const config = validateToolConfig(input.type, input.config);
  await checkToolConfig(db, input.type, config, undefined, options);
  const validSecrets = validateToolSecrets(input.type, secrets);
  checkToolSecrets(input.type, config, validSecrets);
  const secretsEncrypted = sealToolSecrets(validSecrets, options.appSecret);
  try {
    const [tool] = await db
      .insert(agentTools)
      .values({ id: newId('tool'), ...fields, config, secretsEncrypted })
      .returning();
    await invalidateConfig(db);
    return tool!;
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug);
    throw error;
  }
}

export async function updateTool(db: Database, id: string, input: UpdateToolInput, options: ToolWriteOptions = {}): Promise<AgentTool> {
  const existing = await getTool(db, id);
  const { secrets, ...fields } = input;
  const changes: Partial<typeof agentTools.$inferInsert> = { ...fields };
  const validSecrets = secrets !== undefined ? validateToolSecrets(existing.type, secrets) : undefined;
  if (input.config !== undefined) {
    changes.config = validateToolConfig(existing.type, input.config);
    await checkToolConfig(db, existing.type, changes.config, existing.config ?? {}, options);
  }
  if (validSecrets !== undefined || input.config !== undefined) checkUpdatedSecrets(existing, changes.config, validSecrets, options);
  if (validSecrets !== undefined) changes.secretsEncrypted = sealToolSecrets(validSecrets, options.appSecret);
  if (Object.keys(changes).length === 0) return existing;
  try {
    const [tool] = await db.update(agentTools).set(changes).where(eq(agentTools.id, id)).returning();
    if (!tool) throw new NotFoundError('Tool', id);
    await invalidateConfig(db);
    return tool;
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug ?? existing.slug);
    throw error;
  }
}

/**
 * The config and secrets an update leaves the instance with, checked together (checkToolSecrets). Stored
 * secrets this process cannot decrypt are not judged here: the call reports them when it runs.
 */
function checkUpdatedSecrets(existing: AgentTool, config: Record<string, unknown> | undefined, secrets: Record<string, unknown> | undefined, options: ToolWriteOptions): void {
  const toolType = getToolType(existing.type);
  if (!toolType.checkSecrets) return;
  const effectiveConfig = config ?? (toolType.configSchema as z.ZodType).safeParse(existing.config ?? {}).data;
  if (effectiveConfig === undefined) return;
  let effectiveSecrets = secrets;
  if (effectiveSecrets === undefined) {
    try {
      effectiveSecrets = openToolSecrets(existing, options.appSecret);
    } catch {
      return;
    }
  }
  checkToolSecrets(existing.type, effectiveConfig as Record<string, unknown>, effectiveSecrets);
}

export async function deleteTool(db: Database, id: string): Promise<void> {
  const deleted = await db.delete(agentTools).where(eq(agentTools.id, id)).returning({ id: agentTools.id });
  if (deleted.length === 0) throw new NotFoundError('Tool', id);
  await invalidateConfig(db);
}

/**
 * A hand-run execution's input, checked the way a model's call is: the parsed value when it fits
 * the tool's input schema (stored instead of the raw body), and whether this call needs a human's
 * approval (the tool's flag, or its type's rule for this input, e.g. a document delete).
 */
export function prepareManualExecution(tool: AgentTool, input: unknown, call: ExpandedTool | null = null): { input: unknown; needsApproval: boolean; reason?: string } {
  const toolType = getToolType(tool.type);
  // A discovered tool's input is checked by its own server, not by the type's schema.
  const parsedInput = call ? null : (toolType.inputSchema as z.ZodType).safeParse(input);
  // An input the schema rejects still goes to the tool, which reports the failure as its result.
  const value = parsedInput?.success ? parsedInput.data : input;
  if (tool.needsApproval) return { input: value, needsApproval: true, reason: `Tool '${tool.slug}' is set to need approval for every call` };
  if (call?.needsApproval) return { input: value, needsApproval: true, reason: `Tool '${call.name}' of '${tool.slug}' is set to need approval` };
  const config = (toolType.configSchema as z.ZodType).safeParse(tool.config ?? {});
  // Judged on the raw input too when it does not parse: a malformed delete is still a delete.
  if (config.success && toolType.needsApproval?.(value as never, config.data as never)) {
    return { input: value, needsApproval: true, reason: `This ${tool.type} call needs approval by the tool's configuration` };
  }
  return { input: value, needsApproval: false };
}

/** Audits that an admin confirmed running a call that would otherwise wait for approval. */
export async function recordExecutionConfirmation(db: Database, entry: { actorUserId: string; toolId: string; runId: string; reason: string }) {
  await db.insert(auditEvents).values({
    actorUserId: entry.actorUserId,
    action: 'tool.execute-confirmed',
    targetType: 'agent-tool',
    targetId: entry.toolId,
    details: { runId: entry.runId, reason: entry.reason },
  });
}

export const TOOL_LOG_OUTPUT_LIMIT = 10_000;

function truncate(text: string, limit = TOOL_LOG_OUTPUT_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}… [truncated ${text.length - limit} chars]` : text;
}

function outputText(result: ToolResult): string {
  if (!result.success) return result.error ?? '';
  return typeof result.data === 'string' ? result.data : JSON.stringify(result.data ?? null);
}

function logStatus(result: ToolResult): ToolLogStatus {
  if (result.success) return 'success';
  return result.metadata.timedOut === true ? 'timeout' : 'error';
}

export type ExecuteToolOptions = {
  tool: AgentTool;
  input: unknown;
  context: Omit<ToolContext, 'signal' | 'secrets' | 'call'> & { signal?: AbortSignal };
  /** For an expanding instance (MCP, OpenAPI): the discovered tool called, and its model name for the log. */
  call?: { name: string; tool: ExpandedTool } | null;
  /** Opens the instance's encrypted secrets. */
  appSecret?: string;
  /**
   * Called once the call is journaled and before it runs, with the run's status read by the journal's
   * own statement (undefined when the call is not journaled): a throw here stops the call, which is
   * journaled as interrupted. The worker's cancel check at every tool boundary.
   */
  beforeRun?: (runStatus: RunStatus | null | undefined) => void | Promise<void>;
  /**
   * A standalone execution (the run is this one call): the statement that logs the call also ends
   * the run with its result, when the run is still running. `runSettled` in the answer says whether it did.
   */
  settlesRun?: boolean;
  /**
   * A standalone execution whose job claimed its run: the claim is the call's journal begin (see
   * claimRun's `firstStart`). 'first': no earlier attempt started it, so there is no begin write and
   * the entry is written complete with the log row; 'again': an earlier attempt did, so a call it
   * left unjournaled counts as started. Transactional types journal as usual (their completion
   * commits with their writes).
   */
  claimedAs?: 'first' | 'again';
  /**
   * A standalone execution whose job read its run instead of claiming it, since a call of this type
   * never has an effect (callsHaveNoEffect): nothing is written before the call, and the statement
   * that logs it writes the complete journal entry and ends the run from queued as well as running.
   * Running such a call again is all the recovery it needs.
   */
  unclaimed?: boolean;
  /**
   * An unclaimed standalone execution whose run was never stored (runs.ts, ToolRunDraft): the
   * statement that logs the call inserts the run already ended (or ends it, if it was stored meanwhile).
   */
  draft?: ToolRunDraft;
  /**
   * A chat run that publishes nothing after the call before this write commits (the worker's write
   * chain). A call with no effect then skips its journal begin, since running it again is all the
   * recovery it needs (a crash before its log commits re-runs the step; after, the resumed run reuses
   * the stored result), and skips the cancel check's read (a cancel reaches it through its signal,
   * the database's at the step checkpoint). Its log row and complete journal entry are written in one
   * statement handed here instead of awaited, so the next model request goes out meanwhile.
   */
  deferLog?: (written: Promise<void>) => void;
};

/** Whether no call of this instance's type can have an effect (calculator, datetime): its standalone runs need no claim. */
export function callsHaveNoEffect(tool: Pick<AgentTool, 'type'>): boolean {
  const toolType = getToolType(tool.type);
  return !toolType.transactional && (toolType.effect?.possible.every((effect) => effect === 'none') ?? false);
}

/** The discovered tool `name` (server name or `<slug>__<name>`) of an expanding instance, if the config offers it. */
export function findExpandedTool(tool: AgentTool, name: string): { name: string; tool: ExpandedTool } | null {
  const match = expandToolRows([tool]).find((modelTool) => modelTool.call && (modelTool.name === name || modelTool.call.name === name));
  return match?.call ? { name: match.name, tool: match.call } : null;
}

export type ExecutedToolResult = ToolResult & { replayed?: boolean; interrupted?: boolean; runSettled?: boolean };

/** Rolls a transactional call's writes back while still answering with its result. */
class RollbackWithResult extends Error {
  constructor(readonly result: ToolResult) {
    super('tool call rolled back');
  }
}

/**
 * Runs one tool call and logs it (seed 000 §3.4). With a run id and tool call id the call is
 * journaled first (tool-journal.ts): a completed call returns its stored result, an interrupted
 * non-idempotent one its interrupted error, and a transactional type's writes commit together with
 * the journal completion. A stopping worker's abort (WorkerStoppingError) is rethrown: the job is handed over.
 */
export async function executeTool(db: Database, options: ExecuteToolOptions): Promise<ExecutedToolResult> {
  const { tool, input, context } = options;
  const { runId, toolCallId } = context;
  const toolType = getToolType(tool.type);
  const config = (toolType.configSchema as z.ZodType).safeParse(tool.config);
  const parsedInput = (toolType.inputSchema as z.ZodType).safeParse(input);
  // A discovered tool (MCP annotations, OpenAPI method) carries its own effect.
  const effect = options.call?.tool.effect ?? effectOf(toolType, parsedInput.success ? parsedInput.data : input, config.success ? config.data : {});
  const loggedName = options.call?.name ?? tool.slug;
  const journaled = Boolean(runId && toolCallId);
  const journalEntry = runId && toolCallId ? { runId, toolCallId, toolId: tool.id, toolSlug: loggedName, input, effect } : undefined;
  const unclaimed = Boolean(options.unclaimed || options.draft);
  // A first claim of a standalone run began the call already: its entry is written complete at the end.
  if (unclaimed && (effect !== 'none' || toolType.transactional)) throw new Error(`${loggedName}: only a call with no effect may run without its run's claim`);
  const begunByClaim = (options.claimedAs === 'first' || unclaimed) && !toolType.transactional;
  const deferLog = journalEntry && effect === 'none' && !toolType.transactional && !options.claimedAs ? options.deferLog : undefined;
  let attempt = 1;
  // A call whose log is deferred neither begins nor reads (see deferLog).
  if (journalEntry && begunByClaim) {
    if (!unclaimed) await options.beforeRun?.('running'); // the claim's own status
  } else if (journalEntry && !deferLog) {
    const begun = await beginToolCall(db, { ...journalEntry, retryInterrupted: tool.retryInterrupted, startedBefore: options.claimedAs === 'again' });
    if (begun.kind === 'completed') return { ...begun.result, replayed: true };
    if (begun.kind === 'interrupted') {
      await writeToolLog(db, tool, context, input, begun.result, loggedName);
      return { ...begun.result, interrupted: true };
    }
    attempt = begun.attempt;
    if (options.beforeRun) {
      try {
        await options.beforeRun(begun.runStatus);
      } catch (error) {
        await interruptToolCall(db, journalEntry.runId, journalEntry.toolCallId).catch(() => {});
        throw error;
      }
    }
  } else if (!deferLog) {
    await options.beforeRun?.(undefined);
  }

  const started = performance.now();
  let result: ToolResult;
  let secrets: Record<string, unknown> = {};
  let secretsError: string | null = null;
  try {
    secrets = openToolSecrets(tool, options.appSecret);
  } catch (error) {
    secretsError = error instanceof Error ? error.message : String(error);
  }
  if (toolType.expand && !options.call) {
    result = { success: false, error: `${tool.slug} does not offer that tool (not discovered, or not in its allow-list); refresh the tool or check its config`, metadata: { durationMs: 0 } };
  } else if (secretsError) {
    result = { success: false, error: `The tool's secrets cannot be read: ${secretsError}`, metadata: { durationMs: 0 } };
  } else if (!config.success) {
    result = { success: false, error: new InvalidToolConfigError(tool.type, config.error.issues).message, metadata: { durationMs: 0 } };
  } else if (!parsedInput.success) {
    const issues = parsedInput.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ');
    result = { success: false, error: `Invalid input for ${loggedName}: ${issues}`, metadata: { durationMs: 0 } };
  } else {
    const timeoutMs = executionTimeoutMs(toolType, config.data);
    // A backstop for a type that ignores its signal, cleared when the call ends: AbortSignal.timeout's
    // timer cannot be, and fired (a DOMException, an abort event) a second after every call's timeout.
    const deadline = new AbortController();
    const deadlineTimer = setTimeout(() => deadline.abort(new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs + 1000);
    deadlineTimer.unref();
    const signal = context.signal ? AbortSignal.any([context.signal, deadline.signal]) : deadline.signal;
    const idempotencyKey = runId && toolCallId ? toolCallIdempotencyKey(runId, toolCallId) : null;
    const run = async (services: Record<string, unknown>): Promise<ToolResult> => {
      let onAbort: (() => void) | undefined;
      try {
        return await Promise.race([
          toolType.execute(parsedInput.data, config.data, { ...context, services, signal, idempotencyKey, effect, attempt, secrets, call: options.call?.tool }),
          new Promise<ToolResult>((resolve) => {
            onAbort = () => {
              const timedOut = deadline.signal.aborted;
              resolve({
                success: false,
                error: timedOut ? `Timed out after ${timeoutMs} ms` : 'Cancelled',
                metadata: { durationMs: Math.round(performance.now() - started), timedOut, cancelled: !timedOut },
              });
            };
            signal.addEventListener('abort', onAbort, { once: true });
          }),
        ]);
      } catch (error) {
        // A database outage is not the tool's failure: keep its identity so the job retries from the checkpoint.
        if (isDependencyDown(error)) throw error;
        // A type's execute should return failures as values; a throw is still a failure, not a crash.
        return { success: false, error: error instanceof Error ? error.message : String(error), metadata: { durationMs: 0 } };
      } finally {
        clearTimeout(deadlineTimer);
        if (onAbort) signal.removeEventListener('abort', onAbort);
      }
    };
    if (toolType.transactional && journaled) {
      // The type's writes and the journal completion commit together, or neither does.
      result = await db
        .transaction(async (tx) => {
          const outcome = await run({ ...context.services, db: tx });
          if (!outcome.success) throw new RollbackWithResult(outcome);
          await completeToolCall(tx, runId!, toolCallId!, outcome);
          return outcome;
        })
        .catch((error: unknown) => {
          if (error instanceof RollbackWithResult) return error.result;
          throw error;
        });
    } else {
      result = await run(context.services);
    }
  }
  result.metadata.durationMs ||= Math.round(performance.now() - started);
  if (attempt > 1) result.metadata.attempt = attempt;

  const stopping = context.signal?.aborted && context.signal.reason instanceof WorkerStoppingError;
  if (runId && toolCallId && stopping) {
    // Not completed here: the worker that resumes the run decides by the call's effect.
    if (!deferLog) await interruptToolCall(db, runId, toolCallId);
    throw context.signal!.reason;
  }
  // The journal's completion, the log row and (standalone) the run's end: one statement.
  const completes = journalEntry && !(toolType.transactional && result.success) ? { effect: journalEntry.effect, insert: begunByClaim || Boolean(deferLog) } : undefined;
  if (deferLog) {
    deferLog(writeToolLog(db, tool, context, input, result, loggedName, completes).then(() => undefined));
    return result;
  }
  const claim: LogRunClaim = options.draft ? 'draft' : unclaimed ? 'unclaimed' : 'claimed';
  const runSettled = await writeToolLog(db, tool, context, input, result, loggedName, completes, Boolean(options.settlesRun && runId), claim, options.draft);
  return options.settlesRun ? { ...result, runSettled } : result;
}

/**
 * The call's log row; with `completes`, also its journal entry's completion (an UPDATE, or for a
 * call begun by its run's claim an upsert, as a data-modifying CTE of the same statement: one round
 * trip, all or nothing); with `settlesRun`, also that standalone run's end. Resolves to whether the
 * run was ended here.
 */
async function writeToolLog(
  db: Database,
  tool: AgentTool,
  context: ExecuteToolOptions['context'],
  input: unknown,
  result: ToolResult,
  loggedName = tool.slug,
  completes?: { effect: ToolEffect; insert: boolean },
  settlesRun = false,
  claim: LogRunClaim = 'claimed',
  draft?: ToolRunDraft,
): Promise<boolean> {
  const completion: LogCompletion = !completes ? 'none' : completes.insert ? 'insert' : 'update';
  const settlement: LogSettlement = !settlesRun ? 'none' : result.success ? 'succeeded' : 'failed';
  const statement = toolLogStatements[`${completion}_${settlement}_${claim}`];
  const values = {
    toolId: tool.id,
    toolSlug: loggedName,
    userId: context.userId,
    runId: context.runId,
    toolCallId: context.toolCallId,
    // A placeholder is encoded as given (undefined is no JSON): a missing input is logged as null.
    input: input ?? null,
    output: truncate(outputText(result)),
    status: logStatus(result),
    errorMessage: result.success ? null : truncate(result.error ?? 'failed', 2000),
    durationMs: Math.round(result.metadata.durationMs),
    result,
    effect: completes?.effect,
    completedAt: new Date(),
    runError: settlesRun && !result.success ? toRunErrorText(result.error ?? 'failed') : null,
    runOptions: draft?.options ?? null,
    runCreatedAt: draft?.createdAt ?? null,
  };
  if (!settlesRun) return (await statement(db).execute({ ...values, synchronousCommit: 'on' }))[0]?.runSettled ?? false;
  // A standalone execution's end: concurrent ones pipeline on the commit lane and share a flush,
  // and its result is returned (and published) only once that flush is done.
  const { result: rows, durable } = await commitOnLane(db, (lane, synchronousCommit) => statement(lane).execute({ ...values, synchronousCommit }));
  await durable;
  return rows[0]?.runSettled ?? false;
}

const LOG_COMPLETIONS = ['none', 'update', 'insert'] as const;
const LOG_SETTLEMENTS = ['none', 'succeeded', 'failed'] as const;
/** Whether the run was claimed before the call, is ended from queued as well (executeTool's `unclaimed`), or is inserted ended (`draft`). */
const LOG_RUN_CLAIMS = ['claimed', 'unclaimed', 'draft'] as const;
type LogCompletion = (typeof LOG_COMPLETIONS)[number];
type LogSettlement = (typeof LOG_SETTLEMENTS)[number];
type LogRunClaim = (typeof LOG_RUN_CLAIMS)[number];

/**
 * writeToolLog's statement for each combination of journal completion, run settlement and run
 * claim, each prepared per database on first use: drizzle builds an insert with CTEs clause by
 * clause, ~0.5 ms a call. The journal and settlement CTEs read the same placeholders as the log row
 * (runId, toolCallId, toolId, toolSlug, input, result).
 */
const toolLogStatements = Object.fromEntries(
  LOG_COMPLETIONS.flatMap((completion) =>
    LOG_SETTLEMENTS.flatMap((settlement) => LOG_RUN_CLAIMS.map((claim) => [`${completion}_${settlement}_${claim}`, preparedToolLog(completion, settlement, claim)])),
  ),
) as Record<`${LogCompletion}_${LogSettlement}_${LogRunClaim}`, ReturnType<typeof preparedToolLog>>;

function preparedToolLog(completion: LogCompletion, settlement: LogSettlement, claim: LogRunClaim) {
  return preparedQuery((db) => {
    const completed = { runId: toolCalls.runId };
    const completionCte =
      completion === 'none'
        ? undefined
        : db.$with('completed_call').as(completion === 'insert' ? completedToolCallEntry(db).returning(completed) : toolCallCompletion(db).returning(completed));
    const settlementCte =
      settlement === 'none'
        ? undefined
        : db.$with('settled_run').as(
            claim === 'draft'
              ? draftToolRunSettlement(db, settlement).returning({ id: runs.id })
              : toolRunSettlement(db, settlement, { unclaimed: claim === 'unclaimed' }).returning({ id: runs.id }),
          );
    const ctes = [completionCte, settlementCte].filter((cte) => cte !== undefined);
    const placeholder = sql.placeholder;
    return (ctes.length ? db.with(...ctes) : db)
      .insert(agentToolLogs)
      .values({
        toolId: placeholder('toolId'),
        toolSlug: placeholder('toolSlug'),
        userId: placeholder('userId'),
        runId: placeholder('runId'),
        toolCallId: placeholder('toolCallId'),
        input: placeholder('input'),
        output: placeholder('output'),
        status: placeholder('status'),
        errorMessage: placeholder('errorMessage'),
        durationMs: placeholder('durationMs'),
        result: placeholder('result'),
      })
      .onConflictDoNothing()
      // A row already logged (a replayed job) returns nothing: the caller then ends the run the long
      // way (and this statement commits as usual). commitMode sets synchronous_commit for its commit.
      .returning({ runSettled: settlementCte ? sql<boolean>`exists (select 1 from ${settlementCte})` : sql<boolean>`false`, commitMode: setSynchronousCommit })
      .prepare(`tool_log_${completion}_${settlement}_${claim}`);
  });
}

export const toolLogQuerySchema = z.object({
  toolId: z.string().max(100).optional(),
  status: z.enum(TOOL_LOG_STATUSES).optional(),
  runId: z.string().max(100).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** The `nextCursor` of the previous page (an id; pages go newest first). */
  cursor: z.coerce.number().int().positive().optional(),
});
export type ToolLogQuery = z.infer<typeof toolLogQuerySchema>;

/** Execution logs, newest first, filtered, keyset-paginated. */
export async function listToolLogs(db: Database, query: ToolLogQuery) {
  const filters: SQL[] = [];
  if (query.toolId) filters.push(eq(agentToolLogs.toolId, query.toolId));
  if (query.status) filters.push(eq(agentToolLogs.status, query.status));
  if (query.runId) filters.push(eq(agentToolLogs.runId, query.runId));
  if (query.from) filters.push(gte(agentToolLogs.createdAt, query.from));
  if (query.to) filters.push(lte(agentToolLogs.createdAt, query.to));
  const where = filters.length ? and(...filters) : undefined;
  const pageWhere = query.cursor ? and(where, lt(agentToolLogs.id, query.cursor)) : where;
  const rows = await db.select().from(agentToolLogs).where(pageWhere).orderBy(desc(agentToolLogs.id)).limit(query.limit + 1);
  const [totalRow] = await db.select({ value: count() }).from(agentToolLogs).where(where);
  const items = rows.slice(0, query.limit).map(({ result: _result, ...row }) => row);
  return { items, total: totalRow?.value ?? 0, nextCursor: rows.length > query.limit ? String(items.at(-1)!.id) : null };
}
