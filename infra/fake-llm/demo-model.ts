/**
 * The "scripted demo model": a clearly labelled fake model so a newcomer can watch the
 * whole flow (streaming, reasoning, tool calls, approvals, errors) without an API key.
 * Its answers are never written by an LLM; they follow from directives in the last user
 * message:
 *
 *   [[tool:NAME {"json":"input"}]]  The first step calls tool NAME with that input (the JSON
 *                                   object may be omitted: `{}`). Several tool directives make
 *                                   parallel calls in one step. NAME must be in the request's
 *                                   `tools`; otherwise the model answers which tools exist.
 *                                   The step after the results answers with a markdown
 *                                   summary of each tool result (or denial reason).
 *   [[think]]   Adds reasoning (`reasoning_content`) before the answer, in every step.
 *   [[fail]]    The request fails with HTTP 500 and an OpenAI-style error body.
 *   [[empty]]   An answer with no content at all (finish_reason "stop").
 *   [[drop]]    Streams a few tokens, then destroys the socket (a mid-stream failure).
 *   [[slow]]    Realistic pace: 800 ms to first token, then 40 ms per token.
 *
 * The worker's follow-ups prompt (a model with "Suggests follow-ups" on; it starts with
 * FOLLOW_UPS_PROMPT_START) is answered with DEMO_FOLLOW_UPS as a JSON list, so the demo shows them.
 * Anything else is echoed back in a friendly markdown answer that lists these directives (and
 * says which images the message carried).
 * Directives are case-insensitive and may appear anywhere in the message.
 */
import {
  lastUserMessageImages,
  lastUserMessageText,
  requestToolNames,
  stepsSinceLastUserMessage,
  toolResultsSinceLastUserMessage,
  type ChatCompletionRequest,
  type Turn,
} from './scripts';

/** Flags a message can carry; `[[tool:…]]` directives are parsed separately. */
export type DemoFlag = 'think' | 'fail' | 'empty' | 'drop' | 'slow';

/** The directives found in a message, and the message with them removed. */
export interface ParsedDirectives {
  toolCalls: Array<{ name: string; input: unknown }>;
  flags: Set<DemoFlag>;
  /** Directives that looked intended but could not be parsed, as readable explanations. */
  problems: string[];
  /** The message text without directives, trimmed. */
  rest: string;
}

const DIRECTIVE_START = /\[\[(?:tool:([A-Za-z0-9_.-]+)|(think|fail|empty|drop|slow))/gi;
const DEMO_LABEL = '**Scripted demo model**: this reply was not written by an LLM.';
/** How worker/src/agent/follow-ups-prompt.ts begins its request (infra imports nothing of the worker). */
const FOLLOW_UPS_PROMPT_START = 'Suggest follow-up questions:';
export const DEMO_FOLLOW_UPS = ['What can you do?', 'Think it through first [[think]]', 'Show me a failed model call [[fail]]'];

/** Finds the demo directives in a user message. */
export function parseDirectives(text: string): ParsedDirectives {
  const parsed: ParsedDirectives = { toolCalls: [], flags: new Set(), problems: [], rest: '' };
  const kept: string[] = [];
  let keptFrom = 0;
  for (const match of text.matchAll(DIRECTIVE_START)) {
    if (match.index < keptFrom) continue;
    const [whole, toolName, flag] = match;
    let cursor = match.index + whole.length;
    if (flag) {
      if (!text.startsWith(']]', cursor)) continue;
      parsed.flags.add(flag.toLowerCase() as DemoFlag);
    } else {
      cursor = skipWhitespace(text, cursor);
      let input: unknown = {};
      if (text[cursor] === '{') {
        const end = findJsonObjectEnd(text, cursor);
        if (end === -1) {
          parsed.problems.push(`The input of \`[[tool:${toolName}\` is not a complete JSON object.`);
          continue;
        }
        try {
          input = JSON.parse(text.slice(cursor, end));
        } catch (error) {
          parsed.problems.push(`The input of \`[[tool:${toolName}\` is not valid JSON: ${(error as Error).message}`);
          continue;
        }
        cursor = skipWhitespace(text, end);
      }
      if (!text.startsWith(']]', cursor)) {
        parsed.problems.push(`\`[[tool:${toolName}\` must end with \`]]\`, e.g. \`[[tool:${toolName} {"key":"value"}]]\`.`);
        continue;
      }
      parsed.toolCalls.push({ name: toolName!, input });
    }
    kept.push(text.slice(keptFrom, match.index));
    keptFrom = cursor + 2;
  }
  kept.push(text.slice(keptFrom));
  parsed.rest = kept.join('').replace(/[ \t]{2,}/g, ' ').trim();
  return parsed;
}

/**
 * The demo model as a script: deterministic from the conversation, so it serves any
 * number of concurrent conversations. See the directive list at the top of this file.
 */
export function demoModel(request: ChatCompletionRequest): Turn {
  const message = lastUserMessageText(request);
  if (message === undefined) return { text: `${DEMO_LABEL}\n\nSend a user message to get an answer.` };
  if (message.startsWith(FOLLOW_UPS_PROMPT_START)) return { text: JSON.stringify(DEMO_FOLLOW_UPS) };
  const directives = parseDirectives(message);
  const { flags } = directives;
  if (flags.has('fail')) {
    return { error: { status: 500, type: 'server_error', message: 'The demo model failed on purpose ([[fail]]).' } };
  }
  if (flags.has('empty')) return {};
  const turn = answer(request, directives);
  if (flags.has('think')) turn.reasoning = reasoningFor(request, directives, turn);
  if (flags.has('drop')) turn.midStreamError = { afterChunks: 3 };
  if (flags.has('slow')) turn.latency = { timeToFirstTokenMs: 800, interTokenMs: 40 };
  return turn;
}

function answer(request: ChatCompletionRequest, directives: ParsedDirectives): Turn {
  const step = stepsSinceLastUserMessage(request);
  const results = toolResultsSinceLastUserMessage(request);
  if (step > 0 && results.length > 0) return { text: summarizeToolResults(results) };
  if (step === 0 && directives.toolCalls.length > 0) {
    const available = requestToolNames(request);
    const missing = directives.toolCalls.filter((call) => !available.includes(call.name));
    if (missing.length === 0) return { toolCalls: directives.toolCalls };
    const list = available.length > 0 ? codeList(available) : 'none (the request carried no tools)';
    const asked = codeList(missing.map((call) => call.name));
    return { text: `${DEMO_LABEL}\n\nI was asked to call ${asked}, but this agent has no such tool. Available: ${list}.` };
  }
  return { text: echo(request, directives) };
}

function summarizeToolResults(results: ReturnType<typeof toolResultsSinceLastUserMessage>): string {
  const sections = results.map((result) => {
    const name = result.toolName ?? 'unknown tool';
    return `**${name}** (\`${result.toolCallId}\`) returned:\n\n\`\`\`json\n${prettyJson(result.content)}\n\`\`\``;
  });
  const noun = results.length === 1 ? 'the tool' : `the ${results.length} tools`;
  return `${DEMO_LABEL}\n\nHere is what ${noun} returned.\n\n${sections.join('\n\n')}`;
}

function echo(request: ChatCompletionRequest, directives: ParsedDirectives): string {
  const tools = requestToolNames(request);
  const example = tools[0] ?? 'NAME';
  const quoted = directives.rest
    ? `You said:\n\n${directives.rest
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n')}\n\n`
    : '';
  const images = lastUserMessageImages(request).map((image) => ('url' in image ? image.url : `${image.mediaType}, ${image.bytes} bytes`));
  const seen = images.length > 0 ? `I received ${images.length === 1 ? '1 image' : `${images.length} images`}: ${images.join('; ')}.\n\n` : '';
  const problems = directives.problems.map((problem) => `- ${problem}\n`).join('');
  const toolNote = tools.length > 0 ? ` (this agent has ${codeList(tools)})` : '';
  return [
    `${DEMO_LABEL}\n\n${quoted}${seen}${problems ? `${problems}\n` : ''}Put directives in a message to see the rest of the flow:`,
    `- \`[[tool:${example} {"key":"value"}]]\` calls a tool${toolNote}`,
    '- `[[think]]` shows reasoning first',
    '- `[[fail]]` makes the model call fail with HTTP 500',
    '- `[[empty]]` answers with nothing',
    '- `[[drop]]` cuts the connection mid-answer',
    '- `[[slow]]` streams at a realistic LLM pace',
  ].join('\n');
}

function reasoningFor(request: ChatCompletionRequest, directives: ParsedDirectives, turn: Turn): string {
  if (turn.toolCalls) {
    const calls = turn.toolCalls.map((call) => `${call.name} with ${JSON.stringify(call.input)}`).join(' and ');
    return `The user asked me to call ${calls}. I will make the call and then summarize the result.`;
  }
  const results = toolResultsSinceLastUserMessage(request);
  if (stepsSinceLastUserMessage(request) > 0 && results.length > 0) {
    return `I have ${results.length} tool result${results.length === 1 ? '' : 's'}; I will summarize them for the user.`;
  }
  if (directives.toolCalls.length > 0) return 'A requested tool is not available, so I will say which tools are.';
  return 'There is no tool directive, so I will echo the message and list what I can do.';
}

function prettyJson(content: string): string {
  let text = content;
  try {
    text = JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    // Tool results are usually JSON but a denial reason or an error text is plain.
  }
  return text.length > 1_000 ? `${text.slice(0, 1_000)}\n… (${text.length - 1_000} more characters)` : text;
}

function codeList(names: string[]): string {
  return names.map((name) => `\`${name}\``).join(', ');
}

function skipWhitespace(text: string, from: number): number {
  let cursor = from;
  while (cursor < text.length && /\s/.test(text[cursor]!)) cursor += 1;
  return cursor;
}

/** Index just past the `}` closing the object that opens at `start`, or -1; strings may hold braces. */
function findJsonObjectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{') depth += 1;
    else if (character === '}') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}
