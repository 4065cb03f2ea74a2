/**
 * The composer's `/` menu: a draft that is a slash and the start of a command lists the user's
 * saved prompts that match, and choosing one puts its text in the box with the first `{{name}}`
 * selected, ready to be typed over.
 */

export type PromptChoice = { id: string; command: string; title: string; content: string };

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

/** The prompt's text for the box, and the span of its first `{{placeholder}}` (the whole text's end when it has none). */
export function promptDraft(content: string): { text: string; selection: [number, number] } {
  const placeholder = /\{\{\s*[^{}\n]{1,60}?\s*\}\}/.exec(content);
  if (!placeholder) return { text: content, selection: [content.length, content.length] };
  return { text: content, selection: [placeholder.index, placeholder.index + placeholder[0].length] };
}
