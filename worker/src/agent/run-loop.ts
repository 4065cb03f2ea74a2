import { DEFAULT_MODEL_STALL_TIMEOUT_MS } from '@agentq/shared/env';
import { isRunCancelled, markRunRunning, type Approval, type ModelPrices, type Run, type ToolCallEntry } from '@agentq/shared/services';
import { withMemory } from './load-memory';
import { convertToModelMessages, type ModelMessage, type UIMessage } from 'ai';
import type { Job } from 'bullmq';
import type { WorkerDeps } from '../processor';
import { assembleMessage, hasContent, hasText } from './assemble-message';
import { buildToolSet } from './build-tool-set';
import { chatFileDownload } from './attached-files';
import { createCheckpointer } from './checkpoint';
import { finishRun } from './finish-run';
import { createLanguageModel } from './language-model';
import { loadRunSetup, type RunOptions, type RunSetup } from './load-run-setup';
import { DEFAULT_CHAT_TITLE_TIMEOUT_MS, nameChat } from './name-chat';
import { DEFAULT_FOLLOW_UPS_TIMEOUT_MS, suggestFollowUps } from './suggest-follow-ups';
import type { RunStream } from './open-run-stream';
import { parkForApproval, requestApprovals } from './park-for-approval';
import { RunCancelledError } from './run-control';
import { resolveApprovals } from './resolve-approvals';
import { createWriteChain } from './write-chain';
import { streamStep, type RunProgress, type Usage } from './stream-step';
import { createSourceNumbering } from './source-numbering';
import { finishJournaledCalls } from './tool-journal';
import { withUserInstructions } from './user-instructions';

const DEFAULT_MAX_STEPS = 8;
export { STEP_LIMIT_NOTE } from '@agentq/shared/events';
import { STEP_LIMIT_NOTE } from '@agentq/shared/events';

export type RunLoopOptions = {
  run: Run;
  job: Job;
  token: string | undefined;
  stream: RunStream;
  /** The run's abort signal (cancel, worker stopping) and how to fire it from inside. */
  signal: AbortSignal;
  abort: (reason: unknown) => void;
  /** Steps and usage so far, updated as the loop goes (the caller settles a cancelled run with them). */
  progress: RunProgress;
  /** Set when the caller already moved the run to `running` and started loading what it needs. */
  setup?: Promise<RunSetup>;
  /** A later start's reads, sent with its claim: the run's approvals and journaled tool calls. */
  resumeReads?: ResumeReads;
  /**
   * The run's claim, when the loop starts before it returns (an opened first question): the first
   * model call goes out at once, and nothing the run writes or shows (its stream is held by the
   * caller) happens before this resolves; it rejects when the run was not claimed.
   */
  ready?: Promise<unknown>;
};

export type ResumeReads = { approvals: Promise<Approval[]>; toolCalls: Promise<ToolCallEntry[]> };

/**
 * The tool loop for one chat run (SPEC §3): loads what the run needs, continues from the checkpoint
 * (journaled tool calls, approvals), streams model steps and checkpoints each one before anything
 * else happens, parks for approvals and finishes. Throws what must reach BullMQ: DelayedError
 * (parked), a dependency-down error (retry from the checkpoint), the abort reason (cancel/stop).
 */
export async function runLoop(deps: WorkerDeps, options: RunLoopOptions): Promise<{ status: string }> {
  const { run, job, token, stream, signal } = options;
  const checkpointer = createCheckpointer(deps, run, stream);
  const checkpoint = checkpointer.current;
  const progress = Object.assign(options.progress, { steps: checkpoint?.steps ?? 0, usage: (checkpoint?.usage as Usage) ?? {} });
  const { ready } = options;
  let naming: ReturnType<typeof nameChat> | undefined;
  // The run's model, once loaded: its prices make the run's cost at its end.
  let prices: ModelPrices | null = null;
  const finish = async (outcome: Parameters<typeof finishRun>[1]['outcome'], message?: UIMessage) => {
    if (ready) await ready;
    return finishRun(deps, { run, stream, checkpointer, progress, outcome, message, naming, prices });
  };
  const cancelIfFlagged = (cancelled: boolean) => {
    if (cancelled) options.abort(new RunCancelledError());
    if (signal.aborted) throw signal.reason;
  };

  // The status write and every lookup are independent: one round trip before the first chunk. A run
  // claimed by the job (it is `running` and its setup already loading) skips both here.
  const [started, setup] = await Promise.all([options.setup ? true : markRunRunning(deps.db, run.id), options.setup ?? loadRunSetup(deps, run, checkpoint)]);
  if (!started) return { status: 'cancelled' };
  if (!stream.resumed) stream.emit({ type: 'start', messageId: run.id });
  stream.status({ status: 'running', resumed: stream.resumed || undefined });

  if (!setup.model) return { status: await finish({ status: 'failed', error: 'The run has no model (it was deleted); choose another model' }) };
  prices = setup.model;
  // A chat's first question (its branch is the question alone, on a first start): a model that names
  // chats is asked for a title beside the answer (name-chat.ts checks the rest). Nothing else is.
  if (setup.model.namesChats && !stream.resumed && !checkpoint && setup.history?.length === 1) {
    naming = nameChat(deps, { run, model: setup.model, signal, ready, timeoutMs: deps.config.chatTitleTimeoutMs ?? DEFAULT_CHAT_TITLE_TIMEOUT_MS });
  }
  const { agent, offered } = setup;
  let grants = setup.grants;
  const options_ = run.options as RunOptions;
  const maxSteps = agent?.maxSteps ?? DEFAULT_MAX_STEPS;
  // The agent's (or the chat's) prompt, then the user's own instructions, then memory (none in a temporary chat).
  const prompt = withUserInstructions(options_.systemPrompt ?? agent?.systemPrompt ?? undefined, options_.userInstructions);
  const instructions = options_.temporary ? prompt : await withMemory(deps.db, agent ?? undefined, run.userId, prompt);
  const model = createLanguageModel(setup.model);
  // The thinking toggle asks a reasoning-capable model to reason (OpenAI-compatible `reasoning_effort`).
  const providerOptions = options_.enableThinking && setup.model.supportsReasoning ? { agentq: { reasoningEffort: 'medium' } } : undefined;

  let fatal: unknown;
  const sources = createSourceNumbering(stream.chunks);
  const callContext = { runId: run.id, userId: run.userId, sessionId: run.sessionId, signal, sources };
  const writes = createWriteChain();
  const tools = buildToolSet(deps, offered, {
    ...callContext,
    deferLog: writes.addStarted,
    ready,
    callShown: stream.callShown,
    // A tool boundary: a run cancelled in the database never starts another tool with an effect. The
    // journal's statement reads the status; a call it does not journal looks it up (one with no
    // effect is not asked: see executeTool's deferLog).
    beforeRun: async (status) => cancelIfFlagged(status === undefined ? await isRunCancelled(deps.db, run.id) : status === 'cancelled'),
    onFatal: (error) => {
      fatal ??= error;
      options.abort(error);
    },
  });
  const withTools = Object.keys(tools).length > 0;

  let history: ModelMessage[] =
    (checkpoint?.messages as ModelMessage[] | undefined)?.length ? (checkpoint!.messages as ModelMessage[]) : await convertToModelMessages(setup.history as UIMessage[], { tools, ignoreIncompleteToolCalls: true });

  // A previous attempt died while tools ran: finish those calls through the journal before asking the model again.
  const resumedCalls = stream.resumed ? await finishJournaledCalls(deps, { run, history, offered, context: callContext, stream, entries: options.resumeReads?.toolCalls, sources }) : null;
  if (resumedCalls) {
    history = resumedCalls.history;
    if (resumedCalls.announced) progress.steps += 1;
    cancelIfFlagged((await checkpointer.save({ messages: history, steps: progress.steps, usage: progress.usage })).cancelled);
  }

  const download = chatFileDownload(deps.db, run.sessionId);
  const sampling = { temperature: options_.temperature, maxOutputTokens: options_.maxOutputTokens };
  const step = async (messages: ModelMessage[], stepBudget: number, useTools: boolean) => {
    const outcome = await streamStep({
      model,
      instructions,
      messages,
      stepBudget,
      tools: useTools ? tools : undefined,
      offered,
      grants,
      signal,
      providerOptions,
      download,
      sampling,
      stream,
      progress,
      fatal: () => fatal,
      writes,
      stallTimeoutMs: deps.config.modelStallTimeoutMs ?? DEFAULT_MODEL_STALL_TIMEOUT_MS,
      ready,
      onStepBoundary: async (current) => cancelIfFlagged((await checkpointer.save({ messages: current, steps: progress.steps, usage: progress.usage })).cancelled),
    });
    history = outcome.messages;
    return outcome;
  };

  let hitStepLimit = false;
  let finishReason: string | undefined = checkpoint?.finishReason;
  // The loop parked the run in this attempt (and found it decided right after).
  let parkedHere = false;
  // The last step finished and was checkpointed before a crash (a worker before the finish fold wrote
  // that separately): never run it again.
  if (!checkpoint?.done) {
    for (;;) {
      const awaiting = checkpointer.current?.awaitingApprovals ?? [];
      if (awaiting.length > 0) {
        // The rows read with the claim serve the first look; after a park they are read again.
        const resolved = await resolveApprovals(deps, { run, stream, history, awaiting, rows: parkedHere ? undefined : options.resumeReads?.approvals });
        if (!resolved) {
          await parkForApproval(deps, { run, job, token, stream });
          parkedHere = true;
          continue;
        }
        history = resolved.history;
        // A decision may have granted the tool for the session (the setup's grants predate it).
        grants = new Set([...grants, ...resolved.remembered]);
        // The job's claim moved the run back to running; a park in this same attempt did not.
        if (parkedHere && !(await markRunRunning(deps.db, run.id))) throw new RunCancelledError();
        stream.status({ status: 'running' });
        // Written beside the next step's start (its approved calls, its model request), which publishes
        // nothing before it; the journal keeps the approved calls from running twice meanwhile.
        writes.add(() => checkpointer.save({ messages: history, steps: progress.steps, usage: progress.usage }).then(({ cancelled }) => cancelIfFlagged(cancelled)));
      }
      const remaining = maxSteps - progress.steps;
      if (remaining <= 0) {
        if (finishReason === 'tool-calls' || finishReason === undefined) {
          // The step limit was spent on tool calls: one last step without tools so the model answers with what it has.
          hitStepLimit = true;
          finishReason = (await step(history, 1, false)).finishReason;
        }
        break;
      }
      const outcome = await step(history, remaining, withTools);
      finishReason = outcome.finishReason;
      if (outcome.approvalRequests.length > 0) {
        const awaitingApprovals = await requestApprovals(deps, { run, stream, offered, defaultTimeoutMs: agent?.approvalTimeoutMs ?? deps.config.approvalTimeoutMs, requests: outcome.approvalRequests });
        cancelIfFlagged((await checkpointer.save({ messages: history, steps: progress.steps, usage: progress.usage, awaitingApprovals })).cancelled);
        continue;
      }
      if (finishReason !== 'tool-calls' || progress.steps < maxSteps) break;
      cancelIfFlagged((await checkpointer.save({ messages: history, steps: progress.steps, usage: progress.usage })).cancelled);
    }
    // Resolved approvals with no step left to take them.
    await writes.settled();
    // The last step's checkpoint is written with the run's end (finishRun, one statement): nothing between
    // here and there waits on anything but the stream's flush, so a crash re-runs the last step in the same
    // window as a separate write would leave. A run cancelled meanwhile is settled as cancelled there.
    await checkpointer.stage({ messages: history, steps: progress.steps, usage: progress.usage, finishReason, hitStepLimit, done: true });
  } else {
    hitStepLimit = checkpoint.hitStepLimit ?? false;
  }

  await stream.publisher.flush();
  const message = await assembleMessage(run.id, stream.chunks());
  if (!hasContent(message)) {
    return { status: await finish({ status: 'failed', finishReason, error: 'The model returned no content (no text and no tool calls). Try again or choose another model.' }, message) };
  }
  const addNote = hitStepLimit && !hasText(message);
  if (addNote) {
    const id = `limit-${run.id}`;
    stream.emit({ type: 'text-start', id });
    stream.emit({ type: 'text-delta', id, delta: STEP_LIMIT_NOTE });
    stream.emit({ type: 'text-end', id });
  }
  // A model that suggests follow-ups is asked what the user might ask next once its answer is
  // complete (an answer with text; one a previous attempt already gave them keeps those). The
  // questions go out before the run's end and are stored as a part of the answer.
  if (setup.model.suggestsFollowUps && hasText(message) && !message.parts.some((part) => part.type === 'data-follow-ups')) {
    const followUps = await suggestFollowUps(deps, { model: setup.model, history, signal, timeoutMs: deps.config.followUpsTimeoutMs ?? DEFAULT_FOLLOW_UPS_TIMEOUT_MS });
    if (followUps) {
      stream.emit({ type: 'data-follow-ups', data: followUps });
      message.parts.push({ type: 'data-follow-ups', data: followUps });
    }
  }
  return { status: await finish({ status: 'succeeded', finishReason, hitStepLimit }, addNote ? undefined : message) };
}
