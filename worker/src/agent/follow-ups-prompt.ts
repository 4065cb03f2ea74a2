import { FOLLOW_UP_MAX_CHARS, FOLLOW_UPS_MAX } from '@agentq/shared/events';
import type { ModelMessage } from 'ai';

/**
 * The request that has a chat's model suggest what to ask next ("Suggests follow-ups" on the model).
 * Input: the conversation's last messages (their text only, each cut to MESSAGE_CHARS).
 * Output: one user message; the model answers with a JSON array of 3 short questions in the
 * conversation's language, which parseFollowUps reads leniently.
 * The instruction rides in the user message, not a system prompt: every OpenAI-compatible model
 * takes one, and the fake model matches on its start (tests' `byLastUserMessage`, and the demo
 * model in infra/fake-llm/demo-model.ts: keep "Suggest follow-up questions:" first).
 */
export const FOLLOW_UPS_INSTRUCTION =
  'Suggest follow-up questions: write 3 short questions the user might ask next in the conversation below, each under 15 words, in the language of the user\'s last question. Answer with a JSON array of 3 strings and nothing else, e.g. ["…", "…", "…"].';

/** The last few turns say what the chat is about now; more would only cost tokens. */
const MAX_MESSAGES = 6;
const MESSAGE_CHARS = 1500;

/** The question and answer texts of `history`, tool calls and results left out. */
function conversationLines(history: readonly ModelMessage[]): string[] {
  const lines: string[] = [];
  for (const message of history) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const text = typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (!text.trim()) continue;
    lines.push(`${message.role === 'user' ? 'User' : 'Assistant'}: ${text.trim().slice(0, MESSAGE_CHARS)}`);
  }
  return lines.slice(-MAX_MESSAGES);
}

export function followUpsPrompt(history: readonly ModelMessage[]): string {
  return `${FOLLOW_UPS_INSTRUCTION}\n\nConversation:\n"""\n${conversationLines(history).join('\n\n')}\n"""`;
}

/**
 * The questions in a model's answer to the follow-ups prompt: a JSON array of strings, possibly in a
 * code fence or after a few words of preamble. Keeps the first FOLLOW_UPS_MAX strings of 1 to
 * FOLLOW_UP_MAX_CHARS characters; null when there is no such array (the answer offers none).
 */
export function parseFollowUps(text: string): string[] | null {
  const unfenced = text.replace(/```[a-z]*\s*/gi, '');
  const start = unfenced.indexOf('[');
  const end = unfenced.lastIndexOf(']');
  // A list inside an object (`{"questions": [...]}`) is not what was asked for.
  if (start === -1 || end <= start || unfenced.slice(0, start).includes('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const questions = parsed
    .filter((item): item is string => typeof item === 'string')
    .map((item) => item.replace(/\s+/g, ' ').trim())
    .filter((item) => item.length > 0 && item.length <= FOLLOW_UP_MAX_CHARS)
    .slice(0, FOLLOW_UPS_MAX);
  return questions.length > 0 ? questions : null;
}
