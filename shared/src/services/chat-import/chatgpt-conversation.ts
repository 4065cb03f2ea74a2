import { z } from 'zod';
import { MODEL_TOOL_NAME_MAX, modelSafeName } from '../../tools/model-tools';
import { fenced } from '../chat-export';
import { importedTitle, keptMessages, type ImportedChat, type ImportedMessage } from './imported-chat';
import { IMPORTED_TEXT_MAX, type ImportedPart } from './parts';

/**
 * A conversation from ChatGPT's data export (`conversations.json` is an array of them). Its messages
 * form a tree (`mapping`, each node naming its `parent`); the conversation shown is the path up from
 * `current_node`. Only what an import keeps is checked: unknown fields and content types pass and
 * are left out.
 */
const content = z.looseObject({
  content_type: z.string(),
  parts: z.array(z.unknown()).optional(),
  text: z.string().optional(),
  language: z.string().optional(),
  thoughts: z.array(z.looseObject({ summary: z.string().optional(), content: z.string().optional() })).optional(),
});
const chatgptMessage = z.looseObject({
  author: z.looseObject({ role: z.string(), name: z.string().nullish() }),
  create_time: z.number().nullish(),
  content,
  recipient: z.string().nullish(),
  metadata: z.looseObject({ is_visually_hidden_from_conversation: z.boolean().nullish() }).nullish(),
});
type ChatgptMessage = z.infer<typeof chatgptMessage>;
const chatgptNode = z.looseObject({ parent: z.string().nullish(), message: chatgptMessage.nullish() });

export const chatgptConversationSchema = z
  .looseObject({
    title: z.string().nullish(),
    create_time: z.number().nullish(),
    current_node: z.string().nullish(),
    mapping: z.record(z.string(), chatgptNode),
  })
  .transform((conversation): ImportedChat => {
    const createdAt = fromUnixSeconds(conversation.create_time) ?? new Date();
    const { messages, dropped } = convertBranch(shownBranch(conversation.mapping, conversation.current_node), createdAt);
    return { title: importedTitle(conversation.title), createdAt, messages: keptMessages(messages), droppedParts: dropped };
  });

type Node = z.infer<typeof chatgptNode>;

/** The messages shown: from `current_node` (else the newest message) up to the root, oldest first. */
function shownBranch(mapping: Record<string, Node>, currentNode: string | null | undefined): ChatgptMessage[] {
  let leaf = currentNode && Object.hasOwn(mapping, currentNode) ? currentNode : undefined;
  if (!leaf) {
    let newest = -Infinity;
    for (const [id, node] of Object.entries(mapping)) {
      const time = node.message?.create_time ?? -Infinity;
      if (node.message && time >= newest) [leaf, newest] = [id, time];
    }
  }
  const branch: ChatgptMessage[] = [];
  const seen = new Set<string>();
  for (let id = leaf; id && Object.hasOwn(mapping, id) && !seen.has(id); id = mapping[id]!.parent ?? undefined) {
    seen.add(id);
    const message = mapping[id]!.message;
    if (message) branch.push(message);
  }
  return branch.reverse();
}

/**
 * ChatGPT's messages as ours: questions and answers as text, its "thoughts" as reasoning, and a
 * call to one of its tools (an assistant message addressed to `python`, `browser`…) with the tool's
 * reply as a tool call. Consecutive assistant messages (a call, its reply, the answer) are one
 * answer, its steps apart. System messages, hidden ones and custom instructions are left out.
 */
function convertBranch(branch: ChatgptMessage[], conversationStart: Date): { messages: ImportedMessage[]; dropped: number } {
  const messages: ImportedMessage[] = [];
  let dropped = 0;
  let time = conversationStart;
  // The call a tool's reply answers: where its part sits, to be replaced by the ended call.
  let pendingCall: { message: ImportedMessage; index: number; recipient: string } | undefined;
  const answer = (createdAt: Date): ImportedMessage => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const message: ImportedMessage = { role: 'assistant', createdAt, parts: [] };
    messages.push(message);
    return message;
  };
  const step = (message: ImportedMessage, part: ImportedPart) => {
    const previous = message.parts.at(-1);
    // A text after a tool call starts the model's next step, as in a chat of ours.
    if (previous && previous.type !== 'step-start' && 'toolCallId' in previous && !('toolCallId' in part)) message.parts.push({ type: 'step-start' });
    message.parts.push(part);
  };

  branch.forEach((message, index) => {
    time = fromUnixSeconds(message.create_time) ?? time;
    if (message.metadata?.is_visually_hidden_from_conversation) return;
    const { role } = message.author;
    const body = message.content;
    if (role === 'user') {
      if (body.content_type !== 'text' && body.content_type !== 'multimodal_text') return;
      const { text, nonText } = textOf(body);
      dropped += nonText;
      if (text.trim()) messages.push({ role: 'user', createdAt: time, parts: [{ type: 'text', text }] });
      return;
    }
    if (role === 'tool') {
      const call = pendingCall;
      if (call && (!message.author.name || message.author.name === call.recipient)) {
        const { text, nonText } = textOf(body);
        dropped += nonText;
        const { type, toolCallId, input } = call.message.parts[call.index] as Extract<ImportedPart, { toolCallId: string }>;
        call.message.parts[call.index] = { type, toolCallId, input, state: 'output-available', output: { text } } as ImportedPart;
        pendingCall = undefined;
      } else dropped++;
      return;
    }
    if (role !== 'assistant') return;
    const recipient = message.recipient && message.recipient !== 'all' ? message.recipient : undefined;
    if (recipient) {
      const raw = body.content_type === 'code' ? (body.text ?? '') : textOf(body).text;
      const target = answer(time);
      step(target, { type: `tool-${toolName(recipient)}`, toolCallId: `chatgpt-${index}`, input: callInput(body.content_type, raw), state: 'output-error', errorText: 'The export has no result for this call' } as ImportedPart);
      pendingCall = { message: target, index: target.parts.length - 1, recipient };
      return;
    }
    if (body.content_type === 'thoughts') {
      const thoughts = (body.thoughts ?? []).map((thought) => thought.content || thought.summary || '').filter(Boolean).join('\n\n');
      if (thoughts) step(answer(time), { type: 'reasoning', text: clip(thoughts) });
      return;
    }
    if (body.content_type === 'text' || body.content_type === 'multimodal_text' || body.content_type === 'code') {
      const { text, nonText } = body.content_type === 'code' ? { text: fenced(body.text ?? '', body.language && body.language !== 'unknown' ? body.language : ''), nonText: 0 } : textOf(body);
      dropped += nonText;
      if (text.trim()) step(answer(time), { type: 'text', text });
      return;
    }
    // reasoning_recap ("Thought for 8 s") says what the reasoning part's time says already.
    if (body.content_type !== 'reasoning_recap') dropped++;
  });
  return { messages, dropped };
}

/** The text of a content's parts (strings; images and other objects counted, not kept), or its `text`. */
function textOf(body: z.infer<typeof content>): { text: string; nonText: number } {
  if (!body.parts) return { text: clip(body.text ?? ''), nonText: 0 };
  const strings = body.parts.filter((part): part is string => typeof part === 'string');
  return { text: clip(strings.join('\n')), nonText: body.parts.length - strings.length };
}

/** A call's input: its code, or the JSON it sent (a search's query), else its text. */
function callInput(contentType: string, raw: string): unknown {
  if (contentType === 'code') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === 'object') return parsed;
    } catch {
      // Code, not JSON.
    }
    return { code: raw };
  }
  return { text: raw };
}

/** `dalle.text2im` → `dalle_text2im`: a name model providers accept. */
function toolName(recipient: string): string {
  return modelSafeName(recipient).slice(0, MODEL_TOOL_NAME_MAX);
}

function clip(text: string): string {
  return text.length > IMPORTED_TEXT_MAX ? text.slice(0, IMPORTED_TEXT_MAX) : text;
}

function fromUnixSeconds(seconds: number | null | undefined): Date | undefined {
  if (seconds == null || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
