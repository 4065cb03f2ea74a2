import type { RunChunk } from '@agentq/shared/events';
import { getToolType } from '@agentq/shared/tools';
import { experimental_streamTextLowMemory as streamTextOnce, isStepCount, toUIMessageChunk, type LanguageModel, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import type { z } from 'zod';
import type { ModelDownload } from './attached-files';
import type { OfferedModelTool } from './build-tool-set';
import { coversMessages, modelSteps } from './model-steps';
import type { RunStream } from './open-run-stream';
import type { WriteChain } from './write-chain';

/** A run's sampling settings, as the AI SDK's call settings name them. */
export type Sampling = { temperature?: number; maxOutputTokens?: number };

export type Usage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; reasoningTokens?: number };
type StepUsage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; outputTokenDetails?: { reasoningTokens?: number } };

/** Progress that survives steps: what the checkpoint stores. */
export type RunProgress = { steps: number; usage: Usage };

export function addUsage(total: Usage, usage: StepUsage | undefined): Usage {
  if (!usage) return total;
  const sum = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  return {
    inputTokens: sum(total.inputTokens, usage.inputTokens),
    outputTokens: sum(total.outputTokens, usage.outputTokens),
    totalTokens: sum(total.totalTokens, usage.totalTokens),
    reasoningTokens: sum(total.reasoningTokens, usage.outputTokenDetails?.reasoningTokens),
  };
}

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

export type StepCall = {
  model: LanguageModel;
  instructions?: string;
  messages: ModelMessage[];
  /** Steps this call may take (the AI SDK loops through tool results on its own). */
  stepBudget: number;
  tools?: ToolSet;
  offered: OfferedModelTool[];
  grants: Set<string>;
  signal: AbortSignal;
  providerOptions?: Record<string, Record<string, string>>;
  /** The chat's sampling settings; the model's defaults where unset. */
  sampling: Sampling;
  /** Where the call's attached files come from (chatFileDownload). */
  download: ModelDownload;
  stream: RunStream;
  progress: RunProgress;
  /**
   * Called before every step after the first with the messages so far (tool results included): the
   * step checkpoint, added to `writes`. The step's model request goes out meanwhile.
   */
  onStepBoundary: (messages: ModelMessage[]) => Promise<void>;
  /** The run's writes its output waits for: nothing after a pending one is published, and a failed one ends the call with its error. */
  writes: WriteChain;
  /** What a tool reported as fatal during the call (see build-tool-set onFatal), rethrown instead of the SDK's error text. */
  fatal: () => unknown;
  /** MODEL_STALL_TIMEOUT_MS: how long the model may send nothing, before its first output of a step or between two. */
  stallTimeoutMs: number;
  /**
   * The run's claim, when the call went out before it returned: the model's output, and its tools'
   * approval decisions, wait for it (the tools wait in build-tool-set).
   */
  ready?: Promise<unknown>;
};

/** The model provider stopped sending: the run fails with this instead of waiting forever. */
export class ModelStalledError extends Error {
  override name = 'ModelStalledError';

  constructor(ms: number) {
    super(`The model sent nothing for ${Math.round(ms / 1000)} s, so the answer was stopped. Try again; if it keeps happening, check the model provider.`);
  }
}

/**
 * Fails a step whose model goes quiet. On streamText, between two outputs the AI SDK's own
 * `chunkMs` does it and this covers a step's wait for its first output (the SDK's `firstChunkMs`
 * does not fire once the response head is in and the body stays empty: a provider that accepted
 * the request and then hung); on modelSteps this does both, touched by every part (a timestamp,
 * so a part costs no timer). Armed while a model call waits for output, disarmed once it ended.
 */
function stallWatchdog(ms: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let lastOutput = 0;
  const check = () => {
    const quiet = performance.now() - lastOutput;
    if (quiet >= ms) controller.abort(new ModelStalledError(ms));
    else timer = setTimeout(check, ms - quiet);
  };
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const arm = () => {
    lastOutput = performance.now();
    timer ??= setTimeout(check, ms);
  };
  return {
    signal: controller.signal,
    arm,
    disarm,
    touch: () => {
      lastOutput = performance.now();
    },
    /** On streamText: where a part says the model call started or ended sending. */
    onPart: (part: TextStreamPart<ToolSet>) => {
      if (part.type === 'start-step') disarm();
      if (part.type === 'finish-step') arm();
    },
  };
}

export type StepOutcome = {
  finishReason: string | undefined;
  messages: ModelMessage[];
  approvalRequests: { sdkApprovalId: string; toolCallId: string; toolName: string; input: unknown }[];
};

/** One call of the AI SDK's tool loop: every UI chunk becomes a run event; usage and step counts go into `progress`. */
export async function streamStep(call: StepCall): Promise<StepOutcome> {
  const { stream, progress } = call;
  const { ready } = call;
  const toolApproval = call.tools
    ? Object.fromEntries(
        call.offered.map((entry) => {
          const approval = approvalFor(entry, call.grants);
          return [entry.name, ready ? (input: unknown) => ready.then(() => approval(input)) : approval];
        }),
      )
    : undefined;
  const inputs = new Map<string, { toolName: string; input: unknown }>();
  const approvalRequests: { sdkApprovalId: string; toolCallId: string }[] = [];
  const reasoningStarted = new Map<string, number>();
  const stall = stallWatchdog(call.stallTimeoutMs);
  let ended: { finishReason: string; responseMessages: ModelMessage[] } | undefined;
  const abortSignal = AbortSignal.any([call.signal, stall.signal]);
  const prepareStep = ({ messages, stepNumber }: { messages: unknown[]; stepNumber: number }) => {
    if (stepNumber > 0) call.writes.add(() => call.onStepBoundary(messages as ModelMessage[]));
    return undefined;
  };
  const onStepEnd = (step: { usage?: StepUsage; finishReason?: string }) => {
    progress.steps += 1;
    progress.usage = addUsage(progress.usage, step.usage);
    stream.timeline.stepEnded(step);
  };
  // streamText's loop without its stream stages (model-steps), for every call but one that
  // starts by executing approved calls, which stays on streamText.
  const lean = coversMessages(call.messages);
  let result: ReturnType<typeof streamTextOnce> | undefined;
  let parts: AsyncIterable<TextStreamPart<ToolSet>>;
  if (lean) {
    parts = modelSteps({
      model: call.model,
      instructions: call.instructions,
      messages: call.messages,
      tools: call.tools,
      toolApproval,
      stepBudget: call.stepBudget,
      abortSignal,
      providerOptions: call.providerOptions,
      download: call.download,
      ...call.sampling,
      prepareStep,
      onStepStart: () => stream.timeline.stepStarting(),
      onStepEnd,
      onEnd: (end) => {
        ended = end;
      },
      watchdog: stall,
    });
  } else {
    stall.arm();
    // The single-consumer streamText: the one stream this reads, with no tee keeping a second copy of
    // every part for result getters (~1 ms of CPU less per 50-token run, docs/benchmarks.md change 70);
    // what the getters gave, the call's end hands to onEnd.
    result = streamTextOnce({
      model: call.model,
      instructions: call.instructions,
      messages: call.messages,
      tools: call.tools,
      toolApproval: toolApproval as never,
      stopWhen: isStepCount(call.stepBudget),
      abortSignal,
      timeout: { chunkMs: call.stallTimeoutMs },
      providerOptions: call.providerOptions,
      experimental_download: call.download,
      ...call.sampling,
      prepareStep,
      onStepStart: () => stream.timeline.stepStarting(),
      onStepEnd,
      onEnd: (end) => {
        ended = { finishReason: end.finalStep.finishReason, responseMessages: end.responseMessages as ModelMessage[] };
      },
    });
    parts = result.stream;
  }
  try {
    if (ready) await ready;
    const toChunk = uiChunks(lean ? undefined : stall.onPart);
    for await (const part of parts) {
      const chunk = toChunk(part);
      if (!chunk) continue;
      if (call.writes.pending) await call.writes.settled();
      if (call.fatal()) throw call.fatal();
      if (chunk.type === 'reasoning-start') reasoningStarted.set(chunk.id, performance.now());
      if (chunk.type === 'reasoning-end') {
        const started = reasoningStarted.get(chunk.id);
        const durationMs = started === undefined ? undefined : Math.round(performance.now() - started);
        stream.emit({ ...chunk, providerMetadata: { ...chunk.providerMetadata, agentq: { durationMs: durationMs ?? 0 } } });
        continue;
      }
      if (chunk.type === 'tool-input-available') inputs.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
      if (chunk.type === 'tool-approval-request') approvalRequests.push({ sdkApprovalId: chunk.approvalId, toolCallId: chunk.toolCallId });
      if (chunk.type === 'error') throw call.fatal() ?? new Error(chunk.errorText);
      stream.emit(chunk);
    }
    await call.writes.settled();
  } finally {
    stall.disarm();
  }
  if (call.fatal()) throw call.fatal();
  if (stall.signal.aborted) throw stall.signal.reason;
  if (!ended) {
    // The call ended without its end (an error or an abort): its finish reason rejects with why.
    if (result) await Promise.resolve(result.finishReason).catch((error: unknown) => {
      // The SDK's chunkMs: "Chunk timeout of … exceeded" (a DOMException), said as the run says it.
      throw error instanceof Error && error.name === 'TimeoutError' && !call.signal.aborted ? new ModelStalledError(call.stallTimeoutMs) : error;
    });
    throw call.signal.aborted ? call.signal.reason : new Error('The model call ended without finishing');
  }
  return {
    finishReason: ended.finishReason,
    messages: [...call.messages, ...ended.responseMessages],
    approvalRequests: approvalRequests.map((request) => ({ ...request, ...inputs.get(request.toolCallId)! })),
  };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The run's UI chunk for each part, mapped with the AI SDK's own `toUIMessageChunk` as
 * `toUIMessageStream` does, minus its three stream stages per chunk (a reader wrapper and two
 * TransformStreams, ~5 % of a worker's busy time in the text scenario) and its finish callbacks,
 * which a run does not use; a plain function, not another async generator between the parts and
 * their reader. Kept from it: a tool call the SDK rejected as invalid is reported once, as its
 * tool-input-error, not again as a tool-output-error.
 */
function uiChunks(onPart: ((part: TextStreamPart<ToolSet>) => void) | undefined): (part: TextStreamPart<ToolSet>) => RunChunk | undefined {
  const invalidToolCallIds = new Set<string>();
  return (part) => {
    onPart?.(part);
    if (part.type === 'tool-call' && part.invalid) invalidToolCallIds.add(part.toolCallId);
    if (part.type === 'tool-error' && !part.providerExecuted && invalidToolCallIds.delete(part.toolCallId)) return undefined;
    return toUIMessageChunk(part, { sendStart: false, sendFinish: false, sendReasoning: true, onError: errorText }) as RunChunk | undefined;
  };
}
