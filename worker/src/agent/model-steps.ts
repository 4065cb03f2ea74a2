import type { ModelDownload } from './attached-files';
import { getErrorMessage, retryWithExponentialBackoff } from '@ai-sdk/provider-utils';
import {
  APICallError,
  experimental_streamLanguageModelCall as streamModelCall,
  createIdGenerator,
  NoOutputGeneratedError,
  RetryError,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type TextStreamPart,
  type ToolSet,
} from 'ai';

type Part = TextStreamPart<ToolSet>;
type ToolCallPart = Extract<Part, { type: 'tool-call' }>;
type ApprovalStatus = 'user-approval' | 'not-applicable';

export type ModelStepsCall = {
  model: LanguageModel;
  instructions?: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  /** Per tool name, whether a call needs a human (streamText's `toolApproval` record). */
  toolApproval?: Record<string, (input: unknown) => ApprovalStatus | Promise<ApprovalStatus>>;
  /** Steps this call may take, as `stopWhen: isStepCount(stepBudget)`. */
  stepBudget: number;
  abortSignal: AbortSignal;
  providerOptions?: Record<string, Record<string, string>>;
  /** Fetches the files the messages name (streamText's `experimental_download`); the SDK's own fetch when absent. */
  download?: ModelDownload;
  temperature?: number;
  maxOutputTokens?: number;
  /** Before every step, with its input messages (streamText's `prepareStep`). */
  prepareStep?: (step: { messages: ModelMessage[]; stepNumber: number }) => void;
  onStepStart?: () => void;
  onStepEnd?: (step: { usage: LanguageModelUsage; finishReason: string }) => void;
  /** After the last step, with what streamText's onEnd gives a run; not called for a call that failed or was aborted. */
  onEnd?: (end: ModelStepsEnd) => void;
  /** Timed while the model owes output: armed as a model call goes out, touched by each of its parts, disarmed once it has ended. */
  watchdog?: { arm(): void; touch(): void; disarm(): void };
};

export type ModelStepsEnd = { finishReason: string; responseMessages: ModelMessage[] };

/** streamText's ids for what it names itself (approvals, a step's part whose id an earlier step used). */
const generateId = createIdGenerator({ prefix: 'aitxt', size: 24 });

/**
 * The AI SDK's tool loop, as `streamText` runs it for a run, on the SDK's single-call API
 * (`experimental_streamLanguageModelCall`): the same parts (start-step, the model's parts, tool
 * approval requests, tool results, finish-step), the same response messages, retries and step
 * rule. What it leaves out is streamText's ~11 stream stages between the model call and its
 * reader (a pipeThrough each, per part): in one process, a 50-token answer with a tool offered
 * costs 9–12 ms of CPU through streamText and 6–7 ms through this (docs/benchmarks.md, change
 * 81). The first step's request goes out when this is called, not when it is first read. What it
 * does not cover (a first message holding approval responses, which streamText executes before
 * its first step) stays on streamText: see `coversMessages`.
 */
export function modelSteps(call: ModelStepsCall): AsyncGenerator<Part, void> {
  call.watchdog?.arm();
  const first = Promise.resolve(startCall(call, call.messages));
  // Read by the generator's first step; a failure before then is its error, not an unhandled one.
  first.catch(() => {});
  return steps(call, first);
}

/** Whether modelSteps runs these messages as streamText would: the last is not a tool message with approval responses (streamText executes those before its first step). */
export function coversMessages(messages: ModelMessage[]): boolean {
  const last = messages.at(-1);
  return !(last?.role === 'tool' && Array.isArray(last.content) && last.content.some((part) => part.type === 'tool-approval-response'));
}

/** The SDK's retry of a model call: twice more, after 2 s then 4 s (or the provider's retry-after), for a retryable API error. */
function startCall(call: ModelStepsCall, messages: ModelMessage[]) {
  const retry = retryWithExponentialBackoff({
    maxRetries: 2,
    abortSignal: call.abortSignal,
    shouldRetry: async (error) => APICallError.isInstance(error) && error.isRetryable,
    getDelayInMs: retryDelay,
    createRetryError: ({ message, reason, errors }) => new RetryError({ message, reason, errors }),
  });
  return retry(() =>
    streamModelCall({ model: call.model, instructions: call.instructions, messages, tools: call.tools, providerOptions: call.providerOptions, download: call.download, temperature: call.temperature, maxOutputTokens: call.maxOutputTokens, abortSignal: call.abortSignal }),
  );
}

function retryDelay({ error, exponentialBackoffDelay }: { error: unknown; exponentialBackoffDelay: number }): number {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return exponentialBackoffDelay;
  let ms: number | undefined;
  const retryAfterMs = headers['retry-after-ms'];
  if (retryAfterMs && !Number.isNaN(parseFloat(retryAfterMs))) ms = parseFloat(retryAfterMs);
  const retryAfter = headers['retry-after'];
  if (retryAfter && ms === undefined) ms = Number.isNaN(parseFloat(retryAfter)) ? Date.parse(retryAfter) - Date.now() : parseFloat(retryAfter) * 1000;
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < exponentialBackoffDelay) ? ms : exponentialBackoffDelay;
}

/** Part ids unique across the call's steps, as streamText gives a step's `txt-0` that an earlier step used a generated one. */
function partIdReserver() {
  const used = new Set<string>();
  return (id: string) => {
    let reserved = id;
    if (used.has(reserved)) {
      const generated = generateId();
      reserved = generated;
      for (let suffix = 1; used.has(reserved); suffix++) reserved = `${generated}-${suffix}`;
    }
    used.add(reserved);
    return reserved;
  };
}

const isOutput = (part: Part) =>
  ((part.type === 'text-delta' || part.type === 'reasoning-delta') && part.text.length > 0) ||
  (part.type === 'tool-input-delta' && part.delta.length > 0) ||
  part.type === 'file' ||
  part.type === 'reasoning-file' ||
  part.type === 'tool-call';

const NULL_USAGE = {
  inputTokens: undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokens: undefined,
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
  totalTokens: undefined,
  raw: undefined,
} as unknown as LanguageModelUsage;

type RecordedText = { type: 'text' | 'reasoning'; text: string; providerMetadata?: unknown };
type Recorded =
  | RecordedText
  | Extract<Part, { type: 'tool-call' | 'tool-result' | 'tool-error' | 'tool-approval-request' | 'source' | 'custom' | 'file' | 'reasoning-file' }>;

/**
 * The steps' parts. A failure ends them as streamText reports it: an error part, or, once the
 * call's signal fired, an abort part.
 */
async function* steps(call: ModelStepsCall, first: Promise<Awaited<ReturnType<typeof startCall>>>): AsyncGenerator<Part, void> {
  try {
    const responseMessages: ModelMessage[] = [];
    const reserveTextId = partIdReserver();
    const reserveReasoningId = partIdReserver();
    let finishReason = 'other';
    for (let stepNumber = 0; ; stepNumber++) {
      const stepMessages = stepNumber === 0 ? call.messages : [...call.messages, ...responseMessages];
      call.prepareStep?.({ messages: stepMessages, stepNumber });
      if (stepNumber > 0) call.watchdog?.arm();
      call.onStepStart?.();
      const { stream } = await (stepNumber === 0 ? first : startCall(call, stepMessages));

      const content: Recorded[] = [];
      // A step's open text and reasoning parts by the model's id: the id shown (unique across steps) and what is recorded.
      const openText = new Map<string, { id: string; recorded: RecordedText }>();
      const openReasoning = new Map<string, { id: string; recorded: RecordedText }>();
      const toolCalls: ToolCallPart[] = [];
      const outputs: Extract<Part, { type: 'tool-result' | 'tool-error' }>[] = [];
      const toExecute: ToolCallPart[] = [];
      let usage: LanguageModelUsage | undefined;
      let rawFinishReason: string | undefined;
      let providerMetadata: unknown;
      let terminal = false;
      let hadOutput = false;
      let started = false;
      finishReason = 'other';

      for await (const part of stream as AsyncIterable<Part | { type: 'model-call-start' | 'model-call-response-metadata' } | { type: 'model-call-end'; finishReason: string; rawFinishReason?: string; usage: LanguageModelUsage; providerMetadata?: unknown }>) {
        call.watchdog?.touch();
        if (part.type === 'model-call-start') continue;
        if (!started) {
          started = true;
          yield { type: 'start-step', request: {}, warnings: [] } as unknown as Part;
        }
        if (isOutput(part as Part)) hadOutput = true;
        switch (part.type) {
          case 'model-call-response-metadata':
          case 'raw':
            break;
          case 'model-call-end':
            call.watchdog?.disarm();
            terminal = true;
            finishReason = part.finishReason;
            rawFinishReason = part.rawFinishReason;
            usage = part.usage;
            providerMetadata = part.providerMetadata;
            break;
          case 'text-start':
          case 'reasoning-start': {
            const text = part.type === 'text-start';
            const id = (text ? reserveTextId : reserveReasoningId)(part.id);
            const entry = { id, recorded: { type: text ? 'text' : 'reasoning', text: '', providerMetadata: part.providerMetadata } as RecordedText };
            (text ? openText : openReasoning).set(part.id, entry);
            content.push(entry.recorded);
            yield id === part.id ? part : { ...part, id };
            break;
          }
          case 'text-delta':
          case 'reasoning-delta':
          case 'text-end':
          case 'reasoning-end': {
            const text = part.type === 'text-delta' || part.type === 'text-end';
            const opened = text ? openText : openReasoning;
            const entry = opened.get(part.id);
            if (!entry) {
              yield { type: 'error', error: `${text ? 'text' : 'reasoning'} part ${part.id} not found` };
              break;
            }
            entry.recorded.providerMetadata = part.providerMetadata ?? entry.recorded.providerMetadata;
            if (part.type === 'text-end' || part.type === 'reasoning-end') opened.delete(part.id);
            else {
              entry.recorded.text += part.text;
              // streamText drops an empty text delta (not an empty reasoning one).
              if (text && part.text.length === 0 && part.providerMetadata == null) break;
            }
            yield entry.id === part.id ? part : { ...part, id: entry.id };
            break;
          }
          case 'file':
          case 'reasoning-file':
            content.push({ type: part.type, file: part.file, ...(part.providerMetadata != null ? { providerMetadata: part.providerMetadata } : {}) } as Recorded);
            yield part;
            break;
          case 'source':
          case 'custom':
          case 'tool-approval-request':
            content.push(part);
            yield part;
            break;
          case 'tool-call': {
            content.push(part);
            toolCalls.push(part);
            yield part;
            if (part.invalid || !call.tools?.[part.toolName]) break;
            const status = (await call.toolApproval?.[part.toolName]?.(part.input)) ?? 'not-applicable';
            if (status === 'not-applicable') {
              if (call.tools[part.toolName]!.execute && part.providerExecuted !== true) toExecute.push(part);
              break;
            }
            const request = { type: 'tool-approval-request', approvalId: generateId(), toolCall: part } as Extract<Part, { type: 'tool-approval-request' }>;
            content.push(request);
            yield request;
            break;
          }
          case 'tool-result':
          case 'tool-error':
            if (part.type === 'tool-error' || !part.preliminary) {
              content.push(part);
              outputs.push(part);
            }
            yield part;
            break;
          case 'error':
            terminal = true;
            finishReason = 'error';
            yield part;
            break;
          default:
            yield part as Part;
        }
      }
      call.watchdog?.disarm();
      if (!terminal && !hadOutput) {
        yield { type: 'error', error: new NoOutputGeneratedError({ message: 'No output generated. The model stream ended without a finish chunk.' }) };
        return;
      }

      // The calls the model made, run together once its answer has ended, each result shown as it comes.
      if (toExecute.length > 0 && (finishReason === 'stop' || finishReason === 'tool-calls')) {
        const running = new Map(toExecute.map((toolCall) => [toolCall.toolCallId, executeToolCall(call, toolCall, stepMessages).then((output) => ({ toolCall, output }))]));
        while (running.size > 0) {
          const { toolCall, output } = await Promise.race(running.values());
          running.delete(toolCall.toolCallId);
          content.push(output);
          outputs.push(output);
          yield output;
        }
      }

      const stepUsage = usage ?? NULL_USAGE;
      call.onStepEnd?.({ usage: stepUsage, finishReason });
      yield { type: 'finish-step', finishReason, rawFinishReason, usage: stepUsage, providerMetadata, response: { id: generateId(), timestamp: new Date(), modelId: '' } } as unknown as Part;
      responseMessages.push(...(await toResponseMessages(content, call.tools)));

      // streamText's rule for another step: tool calls made, every one answered, steps left.
      const clientCalls = toolCalls.filter((toolCall) => toolCall.providerExecuted !== true);
      const clientOutputs = outputs.filter((output) => output.providerExecuted !== true);
      const another = finishReason !== 'interrupted' && clientCalls.length > 0 && clientCalls.length === clientOutputs.length && stepNumber + 1 < call.stepBudget;
      if (!another) {
        call.onEnd?.({ finishReason, responseMessages });
        return;
      }
    }
  } catch (error) {
    if (call.abortSignal.aborted) yield { type: 'abort' } as Part;
    else yield { type: 'error', error };
  } finally {
    call.watchdog?.disarm();
  }
}

async function executeToolCall(call: ModelStepsCall, toolCall: ToolCallPart, messages: ModelMessage[]): Promise<Extract<Part, { type: 'tool-result' | 'tool-error' }>> {
  const tool = call.tools![toolCall.toolName]!;
  const { toolCallId, toolName, input } = toolCall;
  const dynamic = tool.type === 'dynamic';
  const metadata = toolCall.providerMetadata != null ? { providerMetadata: toolCall.providerMetadata } : {};
  try {
    const output: unknown = await tool.execute!(input, { toolCallId, messages, abortSignal: call.abortSignal } as never);
    return { type: 'tool-result', toolCallId, toolName, input, output, dynamic, ...metadata } as Extract<Part, { type: 'tool-result' }>;
  } catch (error) {
    return { type: 'tool-error', toolCallId, toolName, input, error, dynamic, ...metadata } as Extract<Part, { type: 'tool-error' }>;
  }
}

type ToolOutputValue = { type: 'text'; value: string } | { type: 'json'; value: unknown } | { type: 'error-text'; value: string } | { type: 'error-json'; value: unknown };

async function toolModelOutput(tools: ToolSet | undefined, part: { toolCallId: string; toolName: string; input: unknown }, output: unknown, errorMode: 'none' | 'text' | 'json'): Promise<ToolOutputValue> {
  if (errorMode === 'text') return { type: 'error-text', value: getErrorMessage(output) };
  if (errorMode === 'json') return { type: 'error-json', value: toJsonValue(output) };
  const tool = tools?.[part.toolName];
  if (tool?.toModelOutput) return (await tool.toModelOutput({ toolCallId: part.toolCallId, input: part.input, output } as never)) as ToolOutputValue;
  return typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: toJsonValue(output) };
}

const toJsonValue = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/** A step's response messages as streamText's `toResponseMessages` builds them: the assistant's parts, then the tool results in call order. */
async function toResponseMessages(content: Recorded[], tools: ToolSet | undefined): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  const callOrder = new Map<string, number>();
  const assistant: unknown[] = [];
  for (const part of content) {
    if (part.type === 'source') continue;
    if ((part.type === 'tool-result' || part.type === 'tool-error') && !part.providerExecuted) continue;
    if (part.type === 'text' && part.text.length === 0 && part.providerMetadata == null) continue;
    switch (part.type) {
      case 'text':
      case 'reasoning':
        assistant.push({ type: part.type, text: part.text, providerOptions: part.providerMetadata });
        break;
      case 'custom':
        assistant.push({ type: 'custom', kind: part.kind, providerOptions: part.providerMetadata });
        break;
      case 'file':
      case 'reasoning-file':
        assistant.push({ type: part.type, data: part.file.base64, mediaType: part.file.mediaType, providerOptions: part.providerMetadata });
        break;
      case 'tool-call':
        if (!callOrder.has(part.toolCallId)) callOrder.set(part.toolCallId, callOrder.size);
        assistant.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.invalid && typeof part.input !== 'object' ? {} : part.input,
          providerExecuted: part.providerExecuted,
          providerOptions: part.providerMetadata,
        });
        break;
      case 'tool-result':
      case 'tool-error':
        assistant.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: await toolModelOutput(tools, part, part.type === 'tool-result' ? part.output : part.error, part.type === 'tool-result' ? 'none' : 'json'),
          providerOptions: part.providerMetadata,
        });
        break;
      case 'tool-approval-request':
        assistant.push({
          type: 'tool-approval-request',
          approvalId: part.approvalId,
          toolCallId: part.toolCall.toolCallId,
          ...(part.reason != null ? { reason: part.reason } : {}),
          isAutomatic: part.isAutomatic,
          ...(part.signature != null ? { signature: part.signature } : {}),
        });
    }
  }
  if (assistant.length > 0) messages.push({ role: 'assistant', content: assistant } as ModelMessage);
  const results: { toolCallId: string }[] = [];
  for (const part of content) {
    if ((part.type !== 'tool-result' && part.type !== 'tool-error') || part.providerExecuted) continue;
    results.push({
      type: 'tool-result',
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      output: await toolModelOutput(tools, part, part.type === 'tool-result' ? part.output : part.error, part.type === 'tool-error' ? 'text' : 'none'),
      ...(part.providerMetadata != null ? { providerOptions: part.providerMetadata } : {}),
    } as { toolCallId: string });
  }
  if (results.length > 0) {
    // Stable: results of calls this step did not make keep their place after the ones it did.
    results.sort((a, b) => (callOrder.get(a.toolCallId) ?? Infinity) - (callOrder.get(b.toolCallId) ?? Infinity) || 0);
    messages.push({ role: 'tool', content: results } as ModelMessage);
  }
  return messages;
}
