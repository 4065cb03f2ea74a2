/**
 * The request that has a chat's model name the chat ("Names chats" on the model).
 * Input: the chat's first question (its text, at most QUESTION_CHARS of it).
 * Output: one user message; the model answers with a title of 3 to 6 words in the question's
 * language, which cleanModelTitle (shared/src/services/session-title.ts) tidies before it is stored.
 * The instruction rides in the user message, not a system prompt: every OpenAI-compatible model
 * takes one, and the fake model in tests matches on it (`byLastUserMessage`).
 */
export const CHAT_TITLE_INSTRUCTION =
  "Name this chat: write a title of 3 to 6 words for a conversation that starts with the question below. Write it in the question's language. Answer with the title alone: no quotes, no punctuation at the end.";

/** The question's first characters say what it is about; the rest would only cost tokens. */
const QUESTION_CHARS = 2000;

export function chatTitlePrompt(question: string): string {
  return `${CHAT_TITLE_INSTRUCTION}\n\nQuestion:\n"""\n${question.slice(0, QUESTION_CHARS)}\n"""`;
}
