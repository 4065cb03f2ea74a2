/**
 * A fake OpenAI-compatible LLM server: the one thing agentq tests fake, and faked at the
 * protocol level (SPEC §8), so the worker runs its real AI SDK code path against it.
 * Serves `POST /v1/chat/completions` (SSE `chat.completion.chunk` events or one
 * `chat.completion` object) and `GET /v1/models`, answering from a script (see
 * `scripts.ts`) at the pace of a latency model, `POST /v1/embeddings` with deterministic vectors
 * (`embeddings.ts`), `POST /v1/images/generations` with a small PNG (`images.ts`), and `POST /v1/audio/transcriptions` from a
 * transcription script (see `transcriptions.ts`). Uses node:http only.
 *
 * @example
 * const llm = await startFakeLlm({ script: [{ text: 'Hello!' }] });
 * const model = createOpenAICompatible({ name: 'fake', baseURL: llm.url, apiKey: 'test', includeUsage: true }).chatModel('fake');
 * // … streamText({ model, … }) …
 * await llm.close();
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { demoModel } from './demo-model';
import { answerEmbeddings, type EmbeddingRequest } from './embeddings';
import { answerImages, type ImageRequest } from './images';
import {
  toScript,
  type ChatCompletionRequest,
  type FinishReason,
  type LatencyModel,
  type Script,
  type ScriptLike,
  type Turn,
} from './scripts';
import {
  demoTranscription,
  parseTranscriptionRequest,
  toTranscriptionTurn,
  type TranscriptionRequest,
  type TranscriptionScript,
} from './transcriptions';

export type { TranscriptionRequest, TranscriptionScript, TranscriptionTurn } from './transcriptions';
export { fakeEmbedding, FAKE_EMBEDDING_DIMENSIONS, type EmbeddingRequest } from './embeddings';
export { promptColour, solidPng, FAKE_IMAGE_SIDE, type ImageRequest } from './images';

/** Options of `startFakeLlm`; every field has a test-friendly default. */
export interface FakeLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1; use 0.0.0.0 to serve other containers. */
  host?: string;
  /** Defaults to the directive-driven `demoModel`. */
  script?: ScriptLike;
  /** Defaults to no delay at all, so tests run at full speed. */
  latency?: Partial<LatencyModel>;
  /** Ids listed by `GET /v1/models`; any model id is accepted on completions. */
  models?: string[];
  /** Keep request bodies in `requests` (default true); turn off for long load runs. */
  recordRequests?: boolean;
  /** Called once per completion request with the turn chosen for it (logging, metrics). */
  onTurn?: (event: { request: ChatCompletionRequest; turn: Turn }) => void;
  /** What `POST /v1/audio/transcriptions` answers; defaults to the demo's description of what arrived. */
  transcription?: TranscriptionScript;
  /** `POST /v1/embeddings` answers this error instead of vectors (an outage to test retries against). */
  embeddingError?: { status: number; message: string } | null;
  /** `POST /v1/images/generations` answers this error instead of a picture. */
  imageError?: { status: number; message: string } | null;
}

/** A running fake LLM. */
export interface FakeLlm {
  /** Base URL ending in `/v1`, ready for `createOpenAICompatible({ baseURL })`. */
  url: string;
  port: number;
  /** Replaces the script for requests that arrive from now on. */
  setScript(script: ScriptLike): void;
  /** Replaces the server-wide latency model (fields not given fall back to 0). */
  setLatency(latency: Partial<LatencyModel>): void;
  /** Parsed bodies of completion requests, in arrival order. */
  readonly requests: ChatCompletionRequest[];
  /** Replaces the transcription script for requests that arrive from now on. */
  setTranscription(script: TranscriptionScript): void;
  /** What each transcription request carried, in arrival order (kept when `recordRequests` is). */
  readonly transcriptions: TranscriptionRequest[];
  /** Makes `POST /v1/embeddings` fail with this error (null: answer vectors again). */
  setEmbeddingError(error: { status: number; message: string } | null): void;
  /** What each embeddings request carried, in arrival order (kept when `recordRequests` is). */
  readonly embeddings: EmbeddingRequest[];
  /** Makes `POST /v1/images/generations` fail with this error (null: answer pictures again). */
  setImageError(error: { status: number; message: string } | null): void;
  /** Makes `POST /v1/images/generations` answer this base64 as the picture (bad bytes; null: PNGs again). */
  setImageBase64(b64Json: string | null): void;
  /** What each image request carried, in arrival order (kept when `recordRequests` is). */
  readonly images: ImageRequest[];
  /** Completion requests still being answered; back to 0 once clients are done or gone (a leak check). */
  readonly inFlight: number;
  /** Stops listening and cuts open connections, which ends in-flight streams. */
  close(): Promise<void>;
}

/** A chunk's `choices[0].delta`, in the shape @ai-sdk/openai-compatible parses. */
interface Delta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: Array<{
    index: number;
    id?: string;
    type?: 'function';
    function: { name?: string; arguments: string };
  }>;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details: { reasoning_tokens: number };
}

interface ResponsePlan {
  id: string;
  created: number;
  model: string;
  deltas: Delta[];
  finishReason: FinishReason;
  usage: Usage;
  message: {
    role: 'assistant';
    content: string | null;
    reasoning_content?: string;
    tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  };
}

interface ServerState {
  script: Script;
  latency: LatencyModel;
  models: string[];
  recordRequests: boolean;
  requests: ChatCompletionRequest[];
  requestCount: number;
  inFlight: number;
  onTurn: FakeLlmOptions['onTurn'];
  transcription: TranscriptionScript;
  transcriptions: TranscriptionRequest[];
  embeddingError: { status: number; message: string } | null;
  embeddings: EmbeddingRequest[];
  imageError: { status: number; message: string } | null;
  imageBase64: string | null;
  images: ImageRequest[];
}

/** Thrown inside a response when the client went away; the response is then dropped quietly. */
class ClientDisconnectedError extends Error {
  override name = 'ClientDisconnectedError';
}

class RequestTooLargeError extends Error {
  override name = 'RequestTooLargeError';
}

const NO_LATENCY: LatencyModel = { timeToFirstTokenMs: 0, interTokenMs: 0 };
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const ARGUMENT_PIECE_LENGTH = 10;
const MID_STREAM_FAILURE_GAP_MS = 10;

/** Starts a fake LLM on 127.0.0.1 (a free port by default). */
export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const state: ServerState = {
    script: toScript(options.script ?? demoModel),
    latency: mergeLatency(NO_LATENCY, options.latency),
    models: options.models ?? ['agentq-demo'],
    recordRequests: options.recordRequests ?? true,
    requests: [],
    requestCount: 0,
    inFlight: 0,
    onTurn: options.onTurn,
    transcription: options.transcription ?? demoTranscription,
    transcriptions: [],
    embeddingError: options.embeddingError ?? null,
    embeddings: [],
    imageError: options.imageError ?? null,
    imageBase64: null,
    images: [],
  };
  const host = options.host ?? '127.0.0.1';

  const server = createServer(function handleFakeLlmRequest(request, response) {
    route(request, response, state).catch((error: unknown) => {
      if (error instanceof ClientDisconnectedError || response.destroyed) return;
      console.error('[fake-llm] unexpected error', error);
      if (response.headersSent) response.destroy();
      else sendError(response, 500, `The fake LLM crashed: ${errorMessage(error)}`, 'server_error');
    });
  });
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${port}/v1`,
    port,
    setScript(script) {
      state.script = toScript(script);
    },
    setLatency(latency) {
      state.latency = mergeLatency(NO_LATENCY, latency);
    },
    requests: state.requests,
    setTranscription(script) {
      state.transcription = script;
    },
    transcriptions: state.transcriptions,
    setEmbeddingError(error) {
      state.embeddingError = error;
    },
    embeddings: state.embeddings,
    setImageError(error) {
      state.imageError = error;
    },
    setImageBase64(b64Json) {
      state.imageBase64 = b64Json;
    },
    images: state.images,
    get inFlight() {
      return state.inFlight;
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and in-flight streaming sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function route(request: IncomingMessage, response: ServerResponse, state: ServerState): Promise<void> {
  const { pathname } = new URL(request.url ?? '/', 'http://fake-llm');
  if (request.method === 'GET' && pathname === '/v1/models') {
    sendJson(response, 200, {
      object: 'list',
      data: state.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'agentq-fake-llm' })),
    });
    return;
  }
  if (request.method === 'POST' && pathname === '/v1/chat/completions') {
    state.inFlight += 1;
    try {
      await chatCompletions(request, response, state);
    } finally {
      state.inFlight -= 1;
    }
    return;
  }
  if (request.method === 'POST' && pathname === '/v1/embeddings') {
    await embeddings(request, response, state);
    return;
  }
  if (request.method === 'POST' && pathname === '/v1/images/generations') {
    await images(request, response, state);
    return;
  }
  if (request.method === 'POST' && pathname === '/v1/audio/transcriptions') {
    await transcriptions(request, response, state);
    return;
  }
  sendError(
    response,
    404,
    `No route for ${request.method} ${pathname}. The fake LLM serves POST /v1/chat/completions, POST /v1/embeddings, POST /v1/images/generations, POST /v1/audio/transcriptions and GET /v1/models.`,
    'not_found',
  );
}

async function chatCompletions(request: IncomingMessage, response: ServerResponse, state: ServerState): Promise<void> {
  const disconnected = watchDisconnect(response);
  const body = (await readJsonBody(request, response)) as ChatCompletionRequest | typeof UNREADABLE;
  if (body === UNREADABLE) return;
  if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
    sendError(response, 400, 'The request body needs a `messages` array.', 'invalid_request_error');
    return;
  }
  if (state.recordRequests) state.requests.push(body);
  state.requestCount += 1;
  const requestNumber = state.requestCount;

  let turn: Turn;
  try {
    turn = await state.script(body);
  } catch (error) {
    sendError(response, 500, `The fake LLM script threw: ${errorMessage(error)}`, 'script_error');
    return;
  }
  state.onTurn?.({ request: body, turn });
  if (disconnected.aborted) return;
  if (turn.error) {
    sendError(response, turn.error.status, turn.error.message, turn.error.type ?? 'server_error', turn.error.code);
    return;
  }

  const latency = mergeLatency(state.latency, turn.latency);
  const plan = planResponse(body, turn, latency, requestNumber);
  if (body.stream) await streamResponse(response, disconnected, body, turn, plan, latency);
  else await jsonResponse(response, disconnected, turn, plan, latency);
}

async function embeddings(request: IncomingMessage, response: ServerResponse, state: ServerState): Promise<void> {
  const body = await readJsonBody(request, response);
  if (body === UNREADABLE) return;
  if (state.embeddingError) {
    sendError(response, state.embeddingError.status, state.embeddingError.message, 'server_error');
    return;
  }
  const answer = answerEmbeddings(body, request.headers.authorization);
  if (answer.request && state.recordRequests) state.embeddings.push(answer.request);
  sendJson(response, answer.status, answer.body);
}

async function images(request: IncomingMessage, response: ServerResponse, state: ServerState): Promise<void> {
  const body = await readJsonBody(request, response);
  if (body === UNREADABLE) return;
  if (state.imageError) {
    sendError(response, state.imageError.status, state.imageError.message, 'server_error');
    return;
  }
  const answer = answerImages(body, request.headers.authorization, state.imageBase64 ?? undefined);
  if (answer.request && state.recordRequests) state.images.push(answer.request);
  sendJson(response, answer.status, answer.body);
}

async function transcriptions(request: IncomingMessage, response: ServerResponse, state: ServerState): Promise<void> {
  let body: Buffer;
  try {
    body = await readBytes(request);
  } catch (error) {
    if (error instanceof RequestTooLargeError) sendError(response, 413, error.message, 'invalid_request_error');
    else throw error;
    return;
  }
  const parsed = await parseTranscriptionRequest(body, { contentType: request.headers['content-type'], authorization: request.headers.authorization });
  if (!parsed.ok) {
    sendError(response, 400, parsed.message, 'invalid_request_error');
    return;
  }
  if (state.recordRequests) state.transcriptions.push(parsed.request);
  let turn;
  try {
    turn = await toTranscriptionTurn(state.transcription, parsed.request);
  } catch (error) {
    sendError(response, 500, `The fake LLM transcription script threw: ${errorMessage(error)}`, 'script_error');
    return;
  }
  if ('error' in turn) sendError(response, turn.error.status, turn.error.message, turn.error.type ?? 'server_error');
  else sendJson(response, 200, { text: turn.text });
}

/** Writes SSE chunks at the latency model's pace, the way OpenAI streams. */
async function streamResponse(
  response: ServerResponse,
  disconnected: AbortSignal,
  request: ChatCompletionRequest,
  turn: Turn,
  plan: ResponsePlan,
  latency: LatencyModel,
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Real providers answer headers at once and make the client wait for the first token.
  response.flushHeaders();
  const chunk = (choices: unknown[], extra: object = {}) => ({
    id: plan.id,
    object: 'chat.completion.chunk',
    created: plan.created,
    model: plan.model,
    choices,
    ...extra,
  });

  // Tokens are due on a fixed schedule from the start, like a model generating at a steady
  // rate: time spent writing or a busy event loop then does not add up across the stream.
  const startedAt = performance.now();
  const dueAt = (index: number) => startedAt + latency.timeToFirstTokenMs + index * latency.interTokenMs;
  const failAfter = turn.midStreamError?.afterChunks;
  for (const [index, delta] of plan.deltas.entries()) {
    if (index === failAfter) return failMidStream(response, disconnected, turn, latency);
    await pause(dueAt(index) - performance.now(), disconnected);
    await writeEvent(response, disconnected, chunk([{ index: 0, delta, finish_reason: null }]));
  }
  if (plan.deltas.length === 0) await pause(latency.timeToFirstTokenMs, disconnected);
  if (failAfter !== undefined) return failMidStream(response, disconnected, turn, latency);

  const finalDelta: Delta = plan.deltas.length === 0 ? { role: 'assistant' } : {};
  await writeEvent(response, disconnected, chunk([{ index: 0, delta: finalDelta, finish_reason: plan.finishReason }]));
  // OpenAI sends usage in an extra chunk with empty choices, only when asked to.
  if (request.stream_options?.include_usage) await writeEvent(response, disconnected, chunk([], { usage: plan.usage }));
  await write(response, disconnected, 'data: [DONE]\n\n');
  response.end();
}

/** Fails when the next token would have come; at least 10 ms later, so the client reads what was sent. */
async function failMidStream(
  response: ServerResponse,
  disconnected: AbortSignal,
  turn: Turn,
  latency: LatencyModel,
): Promise<void> {
  const failure = turn.midStreamError!;
  // A reset that overtakes unread chunks makes the client's stream error and discard them.
  await pause(Math.max(latency.interTokenMs, MID_STREAM_FAILURE_GAP_MS), disconnected);
  if (failure.mode === 'error-event') {
    const message = failure.message ?? 'The fake LLM failed mid-stream.';
    await writeEvent(response, disconnected, { error: { message, type: 'server_error', code: null } });
    response.end();
    return;
  }
  response.destroy();
}

/** Answers `stream: false` with one `chat.completion` after the time the stream would take. */
async function jsonResponse(
  response: ServerResponse,
  disconnected: AbortSignal,
  turn: Turn,
  plan: ResponsePlan,
  latency: LatencyModel,
): Promise<void> {
  const generationMs = latency.timeToFirstTokenMs + latency.interTokenMs * Math.max(0, plan.deltas.length - 1);
  await pause(generationMs, disconnected);
  if (turn.midStreamError) {
    if (turn.midStreamError.mode === 'error-event') {
      sendError(response, 500, turn.midStreamError.message ?? 'The fake LLM failed mid-response.', 'server_error');
    } else response.destroy();
    return;
  }
  sendJson(response, 200, {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: [{ index: 0, message: plan.message, finish_reason: plan.finishReason, logprobs: null }],
    usage: plan.usage,
  });
}

/** Turns a script turn into the deltas to stream, the complete message, and usage. */
function planResponse(
  request: ChatCompletionRequest,
  turn: Turn,
  latency: LatencyModel,
  requestNumber: number,
): ResponsePlan {
  const reasoningTokens = splitTokens(turn.reasoning ?? '', latency.tokenCount);
  const textTokens = splitTokens(turn.text ?? '', latency.tokenCount);
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${requestNumber}_${index}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
  }));

  const deltas: Delta[] = [
    ...reasoningTokens.map((piece) => ({ reasoning_content: piece })),
    ...textTokens.map((piece) => ({ content: piece })),
  ];
  let argumentTokens = 0;
  for (const [index, call] of toolCalls.entries()) {
    // The first delta names the call; the arguments follow in pieces, as OpenAI streams them.
    deltas.push({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
    });
    const pieces = splitEvenly(call.function.arguments, Math.ceil(call.function.arguments.length / ARGUMENT_PIECE_LENGTH));
    argumentTokens += pieces.length;
    for (const piece of pieces) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  if (deltas[0]) deltas[0] = { role: 'assistant', ...deltas[0] };

  const promptTokens = turn.usage?.promptTokens ?? estimatePromptTokens(request);
  const completionTokens = turn.usage?.completionTokens ?? reasoningTokens.length + textTokens.length + argumentTokens;
  const text = turn.text ?? '';
  return {
    id: `chatcmpl-fake-${requestNumber}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    deltas,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      completion_tokens_details: { reasoning_tokens: Math.min(reasoningTokens.length, completionTokens) },
    },
    message: {
      role: 'assistant',
      content: toolCalls.length > 0 && text === '' ? null : text,
      ...(turn.reasoning ? { reasoning_content: turn.reasoning } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
  };
}

/** Overrides only the fields that are set, so `{ tokenCount: undefined }` keeps the base value. */
function mergeLatency(base: LatencyModel, override: Partial<LatencyModel> | undefined): LatencyModel {
  const merged = { ...base };
  for (const [key, value] of Object.entries(override ?? {}) as Array<[keyof LatencyModel, number | undefined]>) {
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** Words with their trailing whitespace, or exactly `tokenCount` even pieces. */
function splitTokens(text: string, tokenCount: number | undefined): string[] {
  if (text === '') return [];
  if (tokenCount !== undefined && tokenCount > 0) return splitEvenly(text, tokenCount);
  return text.match(/\s*\S+\s*/g) ?? [text];
}

/** Splits by code points so that no piece ends inside a surrogate pair. */
function splitEvenly(text: string, count: number): string[] {
  const characters = Array.from(text);
  const pieces = Math.max(1, Math.min(count, characters.length));
  return Array.from({ length: pieces }, (_, index) =>
    characters
      .slice(Math.floor((index * characters.length) / pieces), Math.floor(((index + 1) * characters.length) / pieces))
      .join(''),
  ).filter((piece) => piece !== '');
}

/** Roughly 4 characters per token, the usual rule of thumb for English and JSON. */
function estimatePromptTokens(request: ChatCompletionRequest): number {
  return Math.max(1, Math.ceil(JSON.stringify([request.messages, request.tools ?? []]).length / 4));
}

/** Aborts when the client goes away before the response finished. */
function watchDisconnect(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  // A reset socket surfaces here; it means the same as a close, and must not crash the process.
  response.on('error', () => controller.abort());
  return controller.signal;
}

/** Waits `ms`, clearing the timer at once if the client disconnects. */
async function pause(ms: number, disconnected: AbortSignal): Promise<void> {
  if (disconnected.aborted) throw new ClientDisconnectedError();
  if (ms <= 0) return;
  try {
    await sleep(Math.ceil(ms), undefined, { signal: disconnected });
  } catch {
    throw new ClientDisconnectedError();
  }
}

function writeEvent(response: ServerResponse, disconnected: AbortSignal, data: unknown): Promise<void> {
  return write(response, disconnected, `data: ${JSON.stringify(data)}\n\n`);
}

/** Writes, honouring backpressure, and stops once the client is gone. */
async function write(response: ServerResponse, disconnected: AbortSignal, text: string): Promise<void> {
  if (disconnected.aborted || response.destroyed) throw new ClientDisconnectedError();
  if (response.write(text)) return;
  try {
    await once(response, 'drain', { signal: disconnected });
  } catch {
    throw new ClientDisconnectedError();
  }
}

/** What readJsonBody answers once it has sent the client its error (413, or 400 for a body that is not JSON). */
const UNREADABLE = Symbol('unreadable');

/** The request's JSON body; on a body too large or not JSON, sends the OpenAI-shaped error and answers UNREADABLE. */
async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
  try {
    return JSON.parse(await readBody(request));
  } catch (error) {
    if (error instanceof RequestTooLargeError) sendError(response, 413, error.message, 'invalid_request_error');
    else sendError(response, 400, `The request body is not JSON: ${errorMessage(error)}`, 'invalid_request_error');
    return UNREADABLE;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBytes(request)).toString('utf8');
}

async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RequestTooLargeError(`The request body exceeds ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** OpenAI's error body, which @ai-sdk/openai-compatible turns into an APICallError message. */
function sendError(response: ServerResponse, status: number, message: string, type: string, code?: string): void {
  sendJson(response, status, { error: { message, type, param: null, code: code ?? null } });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
