/**
 * The composer's `/` menu: a draft that is a slash and the start of a command lists the user's
 * saved prompts (and those shared with them) that match, and choosing one puts its text in the box with the first `{{name}}`
 * selected, ready to be typed over.
 */

/** `sharedBy`: the admin who shared it, for a prompt that is not the user's own. */
export type PromptChoice = { id: string; command: string; title: string; content: string; sharedBy?: string | null };

/** What follows the `/` while the draft is only `/` and a command being typed; undefined otherwise. */
export function slashQuery(draft: string): string | undefined {
  const match = /^\/([a-z0-9-]*)$/i.exec(draft);
  return match ? match[1]!.toLowerCase() : undefined;
}

/** Prompts whose command starts with the query first, then those whose command or title contains it. */
export function matchPrompts<P extends PromptChoice>(prompts: readonly P[], query: string, limit = 8): P[] {
  const q = query.toLowerCase();
  const starts = prompts.filter((prompt) => prompt.command.startsWith(q));
  const contains = prompts.filter((prompt) => !prompt.command.startsWith(q) && (prompt.command.includes(q) || prompt.title.toLowerCase().includes(q)));
  return [...starts, ...contains].slice(0, limit);
}

/** What fills the variables a prompt may use: the moment it is used, and who uses it. */
export type PromptContext = { now: Date; userName: string; locale?: string | undefined };

/** Placeholders filled in for the user, not typed over. */
export const PROMPT_VARIABLES = ['CURRENT_DATE', 'CURRENT_TIME', 'CURRENT_DATETIME', 'CURRENT_WEEKDAY', 'USER_NAME'] as const;

const VARIABLE = new RegExp(`\\{\\{\\s*(${PROMPT_VARIABLES.join('|')})\\s*\\}\\}`, 'g');

/** The prompt with its variables filled: dates as 2026-12-07, times as 14:05, on the user's clock. */
export function fillVariables(content: string, context: PromptContext): string {
  const { now } = context;
  const pad = (value: number) => String(value).padStart(2, '0');
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}`;
  const values: Record<(typeof PROMPT_VARIABLES)[number], string> = {
    CURRENT_DATE: date,
    CURRENT_TIME: time,
    CURRENT_DATETIME: `${date} ${time}`,
    CURRENT_WEEKDAY: new Intl.DateTimeFormat(context.locale, { weekday: 'long' }).format(now),
    USER_NAME: context.userName,
  };
  return content.replace(VARIABLE, (_whole, name: (typeof PROMPT_VARIABLES)[number]) => values[name]);
}

/**
 * The prompt's text for the box, its variables filled, and the span of its first remaining
 * `{{placeholder}}` to type over (the text's end when it has none).
 */
export function promptDraft(content: string, context?: PromptContext): { text: string; selection: [number, number] } {
  const text = context ? fillVariables(content, context) : content;
  const placeholder = /\{\{\s*[^{}\n]{1,60}?\s*\}\}/.exec(text);
  if (!placeholder) return { text, selection: [text.length, text.length] };
  return { text, selection: [placeholder.index, placeholder.index + placeholder[0].length] };
}
