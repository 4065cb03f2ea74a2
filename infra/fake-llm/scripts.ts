/**
 * The fake LLM's script language. A script maps one chat-completions request to the one
 * turn the model answers with. Scripts read only the request (never server state), so a
 * single fake server can serve hundreds of concurrent conversations: each request carries
 * its whole conversation, and the turn follows from it.
 *
 * @example
 * const llm = await startFakeLlm({
 *   script: byLastUserMessage([
 *     { match: /weather/, reply: [{ toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }, { text: 'Sunny.' }] },
 *     { match: /./, reply: { text: 'Hello!' } },
 *   ]),
 * });
 */

/** One message of a chat-completions request, as @ai-sdk/openai-compatible sends it. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | Array<{ type: string; text?: string; [key: string]: unknown }> | null;
  reasoning_content?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A function tool offered in the request's `tools`. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown };
}

/** The body of `POST /v1/chat/completions` (only the fields the fake reads are typed). */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: ChatTool[];
  tool_choice?: unknown;
  [key: string]: unknown;
}

/**
 * How fast the fake "generates". Text and reasoning are emitted one token per chunk; a
 * token is a word (with its trailing whitespace) unless `tokenCount` fixes the number of
 * chunks. Tool-call arguments are emitted in ~10-character pieces, also one per interval.
 * Chunk i is due `timeToFirstTokenMs + i * interTokenMs` after the request, on a fixed
 * schedule, so a busy fake does not drift further behind with every token.
 */
export interface LatencyModel {
  /** Delay before the first chunk (streaming) or added to the whole response (not streaming). */
  timeToFirstTokenMs: number;
  /** Delay between consecutive chunks. */
  interTokenMs: number;
  /** Split text and reasoning each into exactly this many chunks instead of words. */
  tokenCount?: number;
}

/** A tool call the model makes; `input` is serialized to the JSON `arguments` string. */
export interface ToolCallSpec {
  name: string;
  input: unknown;
  /** Defaults to a server-unique `call_<request>_<index>`. */
  id?: string;
}

/** OpenAI finish reasons the AI SDK maps (`stop` → stop, `tool_calls` → tool-calls, …). */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

/** What the model answers to one request. Fields combine: reasoning, then text, then tool calls. */
export interface Turn {
  reasoning?: string;
  text?: string;
  toolCalls?: ToolCallSpec[];
  /** Answer with this HTTP status and an OpenAI-style `{ error: { message, type, code } }` body. */
  error?: { status: number; message: string; type?: string; code?: string };
  /**
   * Fail after `afterChunks` delta chunks: `disconnect` (default) destroys the socket, as a
   * crashed upstream does; `error-event` sends an in-band `data: {"error":…}` event and ends.
   */
  midStreamError?: { afterChunks: number; mode?: 'disconnect' | 'error-event'; message?: string };
  /** Defaults to `tool_calls` when there are tool calls, otherwise `stop`. */
  finishReason?: FinishReason;
  /** Overrides the server's latency model for this turn only. */
  latency?: Partial<LatencyModel>;
  /** Overrides the reported usage; by default tokens are counted as emitted chunks. */
  usage?: { promptTokens?: number; completionTokens?: number };
}

/** Picks the turn for a request. May be async (e.g. to hold a response until a test releases it). */
export type Script = (request: ChatCompletionRequest) => Turn | Promise<Turn>;

/** A script, or a list of turns as shorthand for `sequence(turns)`. */
export type ScriptLike = Script | readonly Turn[];

/** Normalizes the `Turn[]` shorthand into a script. */
export function toScript(script: ScriptLike): Script {
  return typeof script === 'function' ? script : sequence(script);
}

/**
 * The n-th request of a conversation gets turn n, where n counts the assistant messages
 * already in the request; after the last turn it keeps repeating the last one. With
 * `countFrom: 'last-user-message'` only assistant messages after the last user message
 * count, so every new user message starts the sequence over.
 */
export function sequence(
  turns: readonly Turn[],
  options: { countFrom?: 'start' | 'last-user-message' } = {},
): Script {
  if (turns.length === 0) throw new Error('sequence() needs at least one turn.');
  const countFrom = options.countFrom ?? 'start';
  return function sequenceScript(request) {
    const index =
      countFrom === 'start' ? assistantMessageCount(request) : stepsSinceLastUserMessage(request);
    return turns[Math.min(index, turns.length - 1)]!;
  };
}

/** A rule of `byLastUserMessage`: a string matches as a substring. */
export interface MessageRule {
  match: RegExp | string;
  /** A turn list is a sequence counted from the matching user message. */
  reply: Turn | readonly Turn[] | Script;
}

/**
 * Chooses a reply by the text of the last user message; the first matching rule wins.
 * Without a match the request fails with HTTP 500 naming the rules, unless `fallback` is given.
 */
export function byLastUserMessage(rules: readonly MessageRule[], fallback?: Turn | Script): Script {
  const compiled = rules.map((rule) => ({
    test: (text: string) => (typeof rule.match === 'string' ? text.includes(rule.match) : rule.match.test(text)),
    script: toReplyScript(rule.reply),
  }));
  const fallbackScript = fallback === undefined ? undefined : toReplyScript(fallback);
  return function byLastUserMessageScript(request) {
    const text = lastUserMessageText(request) ?? '';
    const rule = compiled.find((candidate) => candidate.test(text));
    if (rule) return rule.script(request);
    if (fallbackScript) return fallbackScript(request);
    return {
      error: {
        status: 500,
        type: 'script_error',
        message: `No script rule matched the last user message ${JSON.stringify(text.slice(0, 200))}. Rules: ${rules
          .map((candidate) => String(candidate.match))
          .join(', ')}. Add a rule or a fallback.`,
      },
    };
  };
}

function toReplyScript(reply: Turn | readonly Turn[] | Script): Script {
  if (typeof reply === 'function') return reply;
  if (Array.isArray(reply)) return sequence(reply as readonly Turn[], { countFrom: 'last-user-message' });
  return () => reply as Turn;
}

/** The plain text of a message's content (text parts joined). */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/** The images of the last user message (OpenAI `image_url` parts), by media type and decoded size; a URL that is not a data URL counts as its URL. */
export function lastUserMessageImages(request: ChatCompletionRequest): Array<{ mediaType: string; bytes: number } | { url: string }> {
  const message = request.messages[lastUserMessageIndex(request)];
  if (!message || !Array.isArray(message.content)) return [];
  return message.content.flatMap((part) => {
    if (part.type !== 'image_url') return [];
    const url = String((part.image_url as { url?: unknown } | undefined)?.url ?? '');
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    return [data ? { mediaType: data[1]!, bytes: Buffer.from(data[2]!, 'base64').length } : { url }];
  });
}

/** The text of the last user message, or undefined when there is none. */
export function lastUserMessageText(request: ChatCompletionRequest): string | undefined {
  const index = lastUserMessageIndex(request);
  return index === -1 ? undefined : messageText(request.messages[index]!);
}

/** How many assistant messages the conversation already has. */
export function assistantMessageCount(request: ChatCompletionRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** How many model steps already ran for the last user message (0 for its first request). */
export function stepsSinceLastUserMessage(request: ChatCompletionRequest): number {
  return request.messages
    .slice(lastUserMessageIndex(request) + 1)
    .filter((message) => message.role === 'assistant').length;
}

/** A tool result the conversation sent back, with the tool's name looked up from its call. */
export interface ToolResultMessage {
  toolCallId: string;
  toolName: string | undefined;
  content: string;
}

/** Tool results that arrived after the last user message, in order. */
export function toolResultsSinceLastUserMessage(request: ChatCompletionRequest): ToolResultMessage[] {
  const messages = request.messages.slice(lastUserMessageIndex(request) + 1);
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
  }
  return messages
    .filter((message) => message.role === 'tool')
    .map((message) => ({
      toolCallId: message.tool_call_id ?? '',
      toolName: toolNames.get(message.tool_call_id ?? ''),
      content: typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''),
    }));
}

/** Names of the tools the request offers. */
export function requestToolNames(request: ChatCompletionRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}

const FILLER_WORDS = (
  'the agent reads the request then streams a careful answer with steady tokens ' +
  'so every queue worker and socket sees realistic load'
).split(' ');

/** Deterministic filler text of exactly `count` words, for turns that must emit N tokens. */
export function fillerText(count: number): string {
  return Array.from({ length: count }, (_, index) => FILLER_WORDS[index % FILLER_WORDS.length]).join(' ');
}

function lastUserMessageIndex(request: ChatCompletionRequest): number {
  return request.messages.findLastIndex((message) => message.role === 'user');
}
