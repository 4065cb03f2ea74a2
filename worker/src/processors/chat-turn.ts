import { agents, chatSessions, llmModels, messages, runs, type RunCheckpoint } from '@agentq/shared/db';
import { messageToChunks, type RunChunk, type RunStatusData, type ToolOutput } from '@agentq/shared/events';
import { newId } from '@agentq/shared/ids';
import { lastRunEventSeq, readRunEvents, RunEventPublisher } from '@agentq/shared/run-stream';
import {
  approvalsForRun,
  closeApprovalsOfRun,
  createApproval,
  decryptSecret,
  expireApprovals,
  getRun,
  isDependencyDown,
  isTerminal,
  listTools,
  markRunRunning,
  NotFoundError,
  resolveAgentTools,
  sessionGrants,
  type AgentTool,
  transitionRun,
  type Run,
} from '@agentq/shared/services';
import { getToolType } from '@agentq/shared/tools';
import type { z } from 'zod';
import { convertToModelMessages, isStepCount, streamText, toUIMessageStream, type ModelMessage, type ToolSet, type UIMessage } from 'ai';
import type { Job } from 'bullmq';
import { DelayedError, UnrecoverableError } from 'bullmq';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { WorkerDeps } from '../processor';
import { assembleMessage, hasContent, hasText } from '../agent/assemble-message';
import { buildToolSet, expandOfferedTools, runToolCall, type OfferedModelTool, type OfferedTool } from '../agent/build-tool-set';
import { createLanguageModel } from '../agent/language-model';
import { RunTimelineRecorder } from '../agent/run-timeline';

const DEFAULT_MAX_STEPS = 8;
export const STEP_LIMIT_NOTE = '(The tool-call limit was reached before the model could write a final answer. The tool results above are what it found.)';

type RunOptions = { enableTools?: boolean; enableThinking?: boolean; systemPrompt?: string };
type Usage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; reasoningTokens?: number };

function addUsage(total: Usage, usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number; outputTokenDetails?: { reasoningTokens?: number } } | undefined): Usage {
  if (!usage) return total;
  const sum = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  return {
    inputTokens: sum(total.inputTokens, usage.inputTokens),
    outputTokens: sum(total.outputTokens, usage.outputTokens),
    totalTokens: sum(total.totalTokens, usage.totalTokens),
    reasoningTokens: sum(total.reasoningTokens, usage.outputTokenDetails?.reasoningTokens),
  };
}

/** The tools a run offers: the agent's associations (with approval overrides), or every enabled tool for the default agent. */
async function offeredTools(deps: WorkerDeps, run: Run): Promise<OfferedTool[]> {
  if (run.agentId) {
    const resolved = await resolveAgentTools(deps.db, run.agentId).catch((error) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (resolved) return resolved;
  }
  // The run's agent was deleted meanwhile: behave like the default agent.
  return (await listTools(deps.db, { enabled: true })).map((tool: AgentTool) => ({ tool, needsApproval: tool.needsApproval }));
}

/** Conversation so far as model messages: the session's persisted messages (the new user message included). */
async function historyMessages(deps: WorkerDeps, run: Run, tools: ToolSet): Promise<ModelMessage[]> {
  const rows = await deps.db.select().from(messages).where(eq(messages.sessionId, run.sessionId!)).orderBy(asc(messages.createdAt), asc(messages.id));
  const uiMessages = rows
    .filter((row) => row.runId !== run.id || row.role === 'user')
    .map((row) => ({ id: row.id, role: row.role, parts: row.parts as UIMessage['parts'] }));
  return convertToModelMessages(uiMessages, { tools, ignoreIncompleteToolCalls: true });
}

/** The tool loop for one chat run (SPEC §3): every stream part becomes a run event; progress is checkpointed per step. */
export async function processChatTurn(job: Job<{ runId: string }>, deps: WorkerDeps, token?: string): Promise<{ status: string }> {
  const run = await getRun(deps.db, job.data.runId).catch(() => {
    throw new UnrecoverableError(`Run ${job.data.runId} does not exist`);
  });
  if (isTerminal(run.status) && run.status !== 'cancelled') return { status: run.status };
  if (run.kind !== 'chat' || !run.sessionId) throw new UnrecoverableError(`Run ${run.id} is not a chat run`);

  // The worker's job logger already carries runId and jobId.
  const log = deps.logger;
  const control = await deps.control.track(run.id);
  const chunks: RunChunk[] = [];
  const timeline = new RunTimelineRecorder(run.checkpoint?.timeline);
  let lastSeq = await lastRunEventSeq(deps.redis, deps.config.prefix, run.id);
  if (run.checkpoint?.lastSeq && lastSeq < run.checkpoint.lastSeq) {
    // Redis lost the run's stream (restart without persistence): continue the numbering and the message from the checkpoint.
    chunks.push(...messageToChunks(run.id, run.checkpoint.parts ?? []));
    lastSeq = run.checkpoint.lastSeq;
  } else if (lastSeq > 0) {
    const stored = await readRunEvents(deps.redis, deps.config.prefix, run.id, 0);
    for (const event of stored) chunks.push(event.chunk);
    timeline.replay(stored);
  }
  const publisher = new RunEventPublisher(deps.redis, deps.config.prefix, run.id, lastSeq, (event) => {
    chunks.push(event.chunk);
    timeline.apply(event);
  });
  const emit = (chunk: RunChunk) => publisher.emit(chunk);
  const status = (data: RunStatusData) => emit({ type: 'data-run-status', data, transient: true });

  let checkpoint: RunCheckpoint | null = run.checkpoint ?? null;
  let usage: Usage = (checkpoint?.usage as Usage) ?? {};
  let steps = checkpoint?.steps ?? 0;

  async function saveCheckpoint(next: RunCheckpoint) {
    await publisher.flush();
    // The message parts only matter if Redis loses the stream while the run waits for a human, so they are
    // assembled when parking; on the hot path a checkpoint is one UPDATE (see docs/benchmarks.md).
    const parts = next.awaitingApprovals?.length ? (await assembleMessage(run.id, chunks)).parts : checkpoint?.parts;
    next = { ...next, lastSeq: publisher.lastSeq, parts, timeline: timeline.snapshot() };
    checkpoint = next;
    await deps.db.update(runs).set({ checkpoint: next, steps: next.steps, usage: next.usage ?? null }).where(eq(runs.id, run.id));
  }

  async function finish(outcome: { status: 'succeeded' | 'failed' | 'cancelled'; finishReason?: string; error?: string; hitStepLimit?: boolean }, assembled?: UIMessage) {
    await publisher.flush();
    const message = assembled ?? (await assembleMessage(run.id, chunks));
    await deps.db.transaction(async (tx) => {
      await tx.delete(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
      if (message.parts.length > 0) {
        await tx.insert(messages).values({ id: newId('message'), sessionId: run.sessionId!, role: 'assistant', parts: message.parts, runId: run.id });
      }
      await transitionRun(tx, run.id, outcome.status, {
        finishReason: outcome.finishReason ?? null,
        error: outcome.error ?? null,
        hitStepLimit: outcome.hitStepLimit ?? false,
        steps,
        usage,
        // The final timeline (approval responses, the last tool results) outlives the event stream.
        checkpoint: { ...(checkpoint ?? { messages: [], steps }), timeline: timeline.snapshot() },
      });
      await tx.update(chatSessions).set({ updatedAt: new Date() }).where(eq(chatSessions.id, run.sessionId!));
    });
    if (outcome.error) emit({ type: 'error', errorText: outcome.error });
    status({ status: outcome.status, finishReason: outcome.finishReason, steps, usage, hitStepLimit: outcome.hitStepLimit, error: outcome.error });
    emit({ type: 'finish', finishReason: (outcome.finishReason as never) ?? undefined });
    await publisher.close();
    log.info({ status: outcome.status, finishReason: outcome.finishReason, steps, usage, hitStepLimit: outcome.hitStepLimit }, 'run finished');
  }

  try {
    if (!(await markRunRunning(deps.db, run.id))) {
      // Cancelled while queued: end the stream so followers stop waiting.
      const current = await getRun(deps.db, run.id);
      if (current.status === 'cancelled' && chunks.at(-1)?.type !== 'finish') {
        await closeApprovalsOfRun(deps.db, run.id, 'run cancelled');
        await finish({ status: 'cancelled', finishReason: 'cancelled' });
      }
      return { status: current.status };
    }
    if (lastSeq === 0) emit({ type: 'start', messageId: run.id });
    status({ status: 'running', resumed: lastSeq > 0 || undefined });

    const [modelRow] = await deps.db.select().from(llmModels).where(eq(llmModels.id, run.modelId ?? ''));
    if (!modelRow) {
      await finish({ status: 'failed', error: 'The run has no model (it was deleted); choose another model' });
      return { status: 'failed' };
    }
    const [agent] = run.agentId ? await deps.db.select().from(agents).where(eq(agents.id, run.agentId)) : [];
    const options = run.options as RunOptions;
    const maxSteps = agent?.maxSteps ?? DEFAULT_MAX_STEPS;
    const instructions = options.systemPrompt ?? agent?.systemPrompt ?? undefined;
    const model = createLanguageModel({
      ...modelRow,
      apiKey: modelRow.apiKeyEncrypted ? decryptSecret(modelRow.apiKeyEncrypted, deps.config.appSecret) : null,
    });

    const supportsReasoning = modelRow.supportsReasoning;
    const offered = options.enableTools === false ? [] : expandOfferedTools(await offeredTools(deps, run));
    const callContext = { runId: run.id, userId: run.userId, sessionId: run.sessionId, signal: control.signal };
    let stepMessages: ModelMessage[] = [];
    const tools = buildToolSet(deps, offered, {
      ...callContext,
      // Record the call before it runs: a worker that dies mid-tool leaves it here for the next one.
      beforeExecute: async (call) => {
        const pending = [...(checkpoint?.pendingToolCalls ?? []).filter((entry) => entry.toolCallId !== call.toolCallId), call];
        await saveCheckpoint({ messages: stepMessages, steps, usage, pendingToolCalls: pending });
      },
    });

    let history: ModelMessage[] = (checkpoint?.messages as ModelMessage[] | undefined) ?? (await historyMessages(deps, run, tools));

    // A previous worker died after recording tool calls: finish those calls (each effectively-once) before asking the model again.
    if (checkpoint?.pendingToolCalls?.length) {
      const pending = checkpoint.pendingToolCalls;
      const results: { toolCallId: string; toolName: string; output: ToolOutput }[] = [];
      for (const call of pending) {
        const instance = offered.find((entry) => entry.name === call.toolName);
        const output: ToolOutput = instance
          ? await runToolCall(deps, instance, call.toolCallId, call.input, callContext)
          : { success: false, text: `Tool ${call.toolName} is no longer available.`, error: 'unavailable', durationMs: 0 };
        emit({ type: 'tool-output-available', toolCallId: call.toolCallId, output });
        results.push({ ...call, output });
      }
      const known = new Set(
        history
          .flatMap((message) => (Array.isArray(message.content) ? (message.content as { type: string; toolCallId?: string }[]) : []))
          .filter((part) => part.type === 'tool-call')
          .map((part) => part.toolCallId),
      );
      const unannounced = pending.filter((call) => !known.has(call.toolCallId));
      history = [
        ...history,
        ...(unannounced.length ? [{ role: 'assistant' as const, content: unannounced.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })) }] : []),
        { role: 'tool', content: results.map((result) => ({ type: 'tool-result' as const, toolCallId: result.toolCallId, toolName: result.toolName, output: { type: 'text' as const, value: result.output.text } })) },
      ];
      if (unannounced.length) steps += 1;
      await saveCheckpoint({ messages: history, steps, usage });
    }

    const reasoningStarted = new Map<string, number>();
    const defaultApprovalTimeoutMs = agent?.approvalTimeoutMs ?? deps.config.approvalTimeoutMs;

    /** Whether this call needs a human: the tool's flag or the agent's override, or the type's per-input rule; never when granted for the session. */
    function approvalFor(entry: OfferedModelTool, grants: Set<string>) {
      return (input: unknown) => {
        if (grants.has(entry.name)) return 'not-applicable' as const;
        const toolType = getToolType(entry.tool.type);
        const config = (toolType.configSchema as z.ZodType).safeParse(entry.tool.config);
        const byType = config.success && toolType.needsApproval ? toolType.needsApproval(input, config.data) : false;
        return entry.needsApproval || byType ? ('user-approval' as const) : ('not-applicable' as const);
      };
    }

    async function streamStep(messagesForCall: ModelMessage[], stepBudget: number, withTools: boolean) {
      stepMessages = messagesForCall;
      const grants = await sessionGrants(deps.db, run.sessionId!);
      const toolApproval = Object.fromEntries(offered.map((entry) => [entry.name, approvalFor(entry, grants)]));
      const inputs = new Map<string, { toolName: string; input: unknown }>();
      const approvalRequests: { sdkApprovalId: string; toolCallId: string }[] = [];
      const result = streamText({
        model,
        instructions,
        messages: messagesForCall,
        tools: withTools ? tools : undefined,
        toolApproval: withTools ? (toolApproval as never) : undefined,
        stopWhen: isStepCount(stepBudget),
        abortSignal: control.signal,
        // The thinking toggle asks a reasoning-capable model to reason (OpenAI-compatible `reasoning_effort`).
        providerOptions: options.enableThinking && supportsReasoning ? { agentq: { reasoningEffort: 'medium' } } : undefined,
        prepareStep: async ({ messages: current, stepNumber }) => {
          stepMessages = current;
          if (stepNumber > 0) await saveCheckpoint({ messages: current, steps, usage });
          return undefined;
        },
        onStepStart: () => timeline.stepStarting(),
        onStepEnd: (step: { usage?: Parameters<typeof addUsage>[1]; finishReason?: string }) => {
          steps += 1;
          usage = addUsage(usage, step.usage);
          timeline.stepEnded(step);
        },
      });
      const uiStream = toUIMessageStream({ stream: result.stream, sendStart: false, sendFinish: false, sendReasoning: true, onError: (error) => (error instanceof Error ? error.message : String(error)) });
      for await (const chunk of uiStream as AsyncIterable<RunChunk>) {
        if (chunk.type === 'reasoning-start') reasoningStarted.set(chunk.id, performance.now());
        if (chunk.type === 'reasoning-end') {
          const started = reasoningStarted.get(chunk.id);
          const durationMs = started === undefined ? undefined : Math.round(performance.now() - started);
          emit({ ...chunk, providerMetadata: { ...chunk.providerMetadata, agentq: { durationMs: durationMs ?? 0 } } });
          continue;
        }
        if (chunk.type === 'tool-input-available') inputs.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
        if (chunk.type === 'tool-approval-request') approvalRequests.push({ sdkApprovalId: chunk.approvalId, toolCallId: chunk.toolCallId });
        if (chunk.type === 'error') throw new Error(chunk.errorText);
        emit(chunk);
      }
      const finalStep = await result.finalStep;
      const responseMessages = (await result.responseMessages) as ModelMessage[];
      return {
        finishReason: finalStep.finishReason,
        messages: [...messagesForCall, ...responseMessages],
        approvalRequests: approvalRequests.map((request) => ({ ...request, ...inputs.get(request.toolCallId)! })),
      };
    }

    /** Stores the step's approval requests, tells followers, and marks the run as waiting for a human. */
    async function requestApprovals(requests: { sdkApprovalId: string; toolCallId: string; toolName: string; input: unknown }[]) {
      const awaiting: NonNullable<RunCheckpoint['awaitingApprovals']> = [];
      for (const request of requests) {
        const entry = offered.find((candidate) => candidate.name === request.toolName);
        const timeoutMs = entry?.approvalTimeoutMs ?? defaultApprovalTimeoutMs;
        const approval = await createApproval(deps.db, {
          runId: run.id,
          userId: run.userId,
          toolCallId: request.toolCallId,
          toolId: entry?.tool.id ?? null,
          toolName: request.toolName,
          input: request.input,
          expiresAt: new Date(Date.now() + timeoutMs),
        });
        awaiting.push({ approvalId: approval.id, sdkApprovalId: request.sdkApprovalId, toolCallId: request.toolCallId });
        emit({
          type: 'data-approval-request',
          id: approval.id,
          data: { approvalId: approval.id, toolCallId: request.toolCallId, toolName: request.toolName, input: request.input, expiresAt: approval.expiresAt.toISOString() },
        });
      }
      return awaiting;
    }

    /**
     * Turns decided approvals into the AI SDK's tool-approval-response message (edited input applied
     * to the call in history). Returns null while any approval is still pending and unexpired.
     */
    async function resolveApprovals(awaiting: NonNullable<RunCheckpoint['awaitingApprovals']>) {
      await expireApprovals(deps.db, run.id);
      const rows = new Map((await approvalsForRun(deps.db, run.id)).map((row) => [row.id, row]));
      if (awaiting.some((entry) => rows.get(entry.approvalId)?.status === 'pending')) return null;
      const edits = new Map<string, unknown>();
      const responses = awaiting.map((entry) => {
        const row = rows.get(entry.approvalId)!;
        const approved = row.status === 'approved';
        if (approved && row.editedInput !== null && row.editedInput !== undefined) edits.set(entry.toolCallId, row.editedInput);
        const reason = row.status === 'expired' ? 'expired: nobody approved this tool call in time' : (row.reason ?? undefined);
        emit({
          type: 'data-approval-response',
          id: `${row.id}-response`,
          data: { approvalId: row.id, toolCallId: entry.toolCallId, status: row.status as 'approved' | 'denied' | 'expired', reason: row.reason ?? undefined, decidedBy: row.decidedBy ?? undefined, editedInput: row.editedInput ?? undefined },
        });
        return { type: 'tool-approval-response' as const, approvalId: entry.sdkApprovalId, approved, reason: approved ? undefined : reason };
      });
      const withEdits = history.map((message) =>
        message.role === 'assistant' && Array.isArray(message.content)
          ? { ...message, content: message.content.map((part) => (part.type === 'tool-call' && edits.has(part.toolCallId) ? { ...part, input: edits.get(part.toolCallId) } : part)) }
          : message,
      ) as ModelMessage[];
      return [...withEdits, { role: 'tool' as const, content: responses }] as ModelMessage[];
    }

    let hitStepLimit = false;
    let finishReason: string | undefined;
    const withTools = Object.keys(tools).length > 0;
    for (;;) {
      const awaiting = checkpoint?.awaitingApprovals ?? [];
      if (awaiting.length > 0) {
        const resolved = await resolveApprovals(awaiting);
        if (!resolved) {
          // Park: the job leaves the worker (no slot held) until a decision promotes it or the earliest approval expires.
          await transitionRun(deps.db, run.id, 'awaiting_approval');
          status({ status: 'awaiting_approval' });
          await publisher.flush();
          const pendingRows = (await approvalsForRun(deps.db, run.id)).filter((row) => row.status === 'pending');
          // Decided between the check above and now: go round again instead of parking.
          if (pendingRows.length === 0) continue;
          const wakeAt = Math.min(...pendingRows.map((row) => row.expiresAt.getTime())) + 250;
          if (!token) throw new Error('cannot park a job without its lock token');
          await job.moveToDelayed(wakeAt, token);
          // A decision may have landed after our check but before the job was delayed: then nobody promoted it.
          if ((await approvalsForRun(deps.db, run.id)).every((row) => row.status !== 'pending')) await job.promote().catch(() => {});
          log.info({ approvals: pendingRows.map((row) => row.id), wakeAt: new Date(wakeAt).toISOString() }, 'run parked for approval');
          throw new DelayedError();
        }
        history = resolved;
        await saveCheckpoint({ messages: history, steps, usage });
        status({ status: 'running' });
      }
      const remaining = maxSteps - steps;
      if (remaining <= 0) {
        if (finishReason === 'tool-calls' || finishReason === undefined) {
          // The step limit was spent on tool calls: one last step without tools so the model answers with what it has.
          hitStepLimit = true;
          const outcome = await streamStep(history, 1, false);
          history = outcome.messages;
          finishReason = outcome.finishReason;
          await saveCheckpoint({ messages: history, steps, usage });
        }
        break;
      }
      const outcome = await streamStep(history, remaining, withTools);
      history = outcome.messages;
      finishReason = outcome.finishReason;
      if (outcome.approvalRequests.length > 0) {
        const awaitingApprovals = await requestApprovals(outcome.approvalRequests);
        await saveCheckpoint({ messages: history, steps, usage, awaitingApprovals });
        continue;
      }
      if (finishReason !== 'tool-calls' || steps < maxSteps) break;
      await saveCheckpoint({ messages: history, steps, usage });
    }

    await publisher.flush();
    const message = await assembleMessage(run.id, chunks);
    if (!hasContent(message)) {
      await finish({ status: 'failed', finishReason, error: 'The model returned no content (no text and no tool calls). Try again or choose another model.' }, message);
      return { status: 'failed' };
    }
    const addNote = hitStepLimit && !hasText(message);
    if (addNote) {
      const id = `limit-${run.id}`;
      emit({ type: 'text-start', id });
      emit({ type: 'text-delta', id, delta: STEP_LIMIT_NOTE });
      emit({ type: 'text-end', id });
    }
    await finish({ status: 'succeeded', finishReason, hitStepLimit }, addNote ? undefined : message);
    return { status: 'succeeded' };
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    if (control.signal.aborted) {
      await finish({ status: 'cancelled', finishReason: 'cancelled' }).catch((finishError) => log.error({ err: finishError }, 'could not record cancellation'));
      return { status: 'cancelled' };
    }
    const message = error instanceof Error ? error.message : String(error);
    if (job.attemptsMade + 1 < (job.opts.attempts ?? 1) && isDependencyDown(error)) {
      // PostgreSQL or Redis hiccup: flush what we have and let BullMQ retry from the checkpoint.
      await publisher.flush().catch(() => {});
      throw error;
    }
    log.warn({ err: error }, 'run failed');
    await finish({ status: 'failed', error: message });
    return { status: 'failed' };
  } finally {
    control.release();
  }
}

