import type { Database } from '../../db/client';
import { ConflictError, InvalidInputError, NotFoundError } from '../../services/errors';
import { defineToolType, type ToolResult } from '../define-tool-type';
import { operations, type OperationEnv } from './operations';
import { documentConfigSchema, documentInputSchema, type DocumentAction, type DocumentToolConfig } from './schemas';
import { tokenCounter } from './token-budget';
import { documentTextZh } from './zh';

export { DOCUMENT_ACTIONS, documentConfigSchema, documentInputSchema, type DocumentToolConfig, type DocumentToolInput } from './schemas';

const READ_ONLY_ACTIONS = new Set(['read', 'list', 'search']);

export const NEEDS_LOGIN_ERROR = 'This tool needs a logged-in session: documents belong to a user, and this run has none.';

function describeDocumentTool(config: DocumentToolConfig): string {
  const approval = config.approvalRequiredActions.length
    ? `These actions wait for the user's approval before they run: ${config.approvalRequiredActions.join(', ')}.`
    : 'No action needs approval.';
  return [
    "Keep and use the user's documents across chat sessions. Two kinds:",
    '- memory: notes for yourself (facts, preferences, decisions, intermediate conclusions) to recall in later sessions. Before answering about earlier work or preferences, list or search memories first.',
    '- document: a deliverable for the user (report, minutes, spec) in markdown; the user can open and edit it on their Documents page.',
    'Actions (set "action"):',
    `- create: title, content (markdown, at most ${config.maxContentLength} characters), type (memory by default), summary (else the first ${config.defaultSummaryLength} characters), tags (comma-separated).`,
    `- list: documents without content, newest first; filterType, q (full-text words), page/pageSize (at most ${config.maxPageSize}) or offset.`,
    '- search: documents ranked by relevance to q, each with a short snippet (matches in **bold**).',
    `- read: id. Returns the content if it fits in ${config.tokenBudget} tokens, else the summary; fullContent=true returns everything; startLine/endLine return numbered lines ("12<TAB>text"; the number and tab are not part of the text).`,
    '- update: id plus any of title, content (replaces it all), summary, tags.',
    '- str_replace: id, oldText (must occur exactly once; copy it exactly), newText. Prefer it to update for small edits.',
    '- insert: id, line (insert after this line; 0 = top), text.',
    '- restore: id, version: brings an earlier version back as a new version.',
    '- delete: id.',
    'update, str_replace, insert and restore accept expectedVersion (the version you read) and refuse the change if the document changed since.',
    `read, list and search return at most about ${config.tokenBudget} tokens; when a result is cut it says how to get the rest (hasMore, nextOffset, hint).`,
    approval,
  ].join('\n');
}

/** Domain failures the model should read and act on; anything else (a database outage) propagates. */
function failureMessage(error: unknown): string | undefined {
  if (error instanceof NotFoundError || error instanceof ConflictError || error instanceof InvalidInputError) return error.message;
  return undefined;
}

/**
 * `document`: the agent's memory and deliverables (seed 003), per user, through the one documents
 * service. Delete waits for approval by default: `needsApproval` reports the configured actions and
 * the worker parks the call before `execute` (so the seed's `ctx.approved` check is not needed here).
 */
export const documentToolType = defineToolType({
  type: 'document',
  label: 'Documents',
  summary: "Reads and writes the user's memories and documents across sessions: summaries and token budgets, full-text search, targeted edits, versions.",
  translations: { zh: documentTextZh },
  configSchema: documentConfigSchema,
  inputSchema: documentInputSchema,
  describe: describeDocumentTool,
  effect: {
    possible: ['none', 'non-idempotent'],
    summary: 'read, list and search change nothing; every other action writes (exactly once: the write commits with the call journal).',
    of: (input) => (READ_ONLY_ACTIONS.has((input as { action?: string } | null)?.action ?? '') ? 'none' : 'non-idempotent'),
  },
  transactional: true,
  usesMemory: true,
  needsApproval: (input, config) => {
    const action = (input as { action?: unknown } | null | undefined)?.action;
    return typeof action === 'string' && config.approvalRequiredActions.includes(action as DocumentAction);
  },
  execute: async (input, config, context): Promise<ToolResult> => {
    const started = performance.now();
    const action = (input as { action?: unknown } | null)?.action;
    const fail = (error: string): ToolResult => ({ success: false, error, metadata: { durationMs: Math.round(performance.now() - started), action } });

    if (context.userId === null || context.userId === undefined || context.userId === '') return fail(NEEDS_LOGIN_ERROR);
    const db = context.services.db as Database | undefined;
    if (!db) return fail('The document tool has no database here; it runs inside the agentq worker.');
    const parsedConfig = documentConfigSchema.safeParse(config ?? {});
    const parsedInput = documentInputSchema.safeParse(input);
    if (!parsedConfig.success || !parsedInput.success) {
      const issues = (parsedInput.error ?? parsedConfig.error)?.issues ?? [];
      return fail(`Invalid ${parsedInput.success ? 'tool configuration' : 'input'}: ${issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}`);
    }
    const settings = parsedConfig.data;
    const request = parsedInput.data;
    const env: OperationEnv = {
      db,
      actor: { userId: context.userId, runId: context.runId, sessionId: context.sessionId },
      config: settings,
      limits: { maxContentLength: settings.maxContentLength, defaultSummaryLength: settings.defaultSummaryLength },
      tokens: await tokenCounter(),
    };
    try {
      const operation = operations[request.action] as (input: typeof request, env: OperationEnv) => Promise<unknown>;
      const data = await operation(request, env);
      return { success: true, data, metadata: { durationMs: Math.round(performance.now() - started), action: request.action } };
    } catch (error) {
      const message = failureMessage(error);
      if (message === undefined) throw error;
      return fail(message);
    }
  },
});
