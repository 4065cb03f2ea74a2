/** The text parts of a stored message (UI parts), joined by newlines; reasoning, tools and files left out. */
export function messageText(parts: unknown): string {
  return (Array.isArray(parts) ? parts : [])
    .flatMap((part) => ((part as { type?: unknown })?.type === 'text' && typeof (part as { text?: unknown }).text === 'string' ? [(part as { text: string }).text] : []))
    .filter(Boolean)
    .join('\n');
}
