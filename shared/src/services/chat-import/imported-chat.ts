import type { ImportedPart, ImportedRole } from './parts';

/** A chat read from a file, in our terms, before it is stored. */
export type ImportedChat = {
  title: string;
  createdAt: Date;
  messages: ImportedMessage[];
  /** Parts of kinds an import does not keep (files, sources, calls that never ended), and content ChatGPT alone shows (images, browsing). */
  droppedParts: number;
  /** The chat's tags (our own export carries them): valid names, each once, at most MAX_TAGS_PER_CHAT. */
  tags?: string[];
};

export type ImportedMessage = { role: ImportedRole; createdAt: Date; parts: ImportedPart[] };

/** What a chat is called when its file names it nothing. */
export const UNTITLED_IMPORT = 'Imported chat';

/** The file's title as a session title: one line, at most 200 characters. */
export function importedTitle(title: string | null | undefined): string {
  const line = (title ?? '').replace(/\s+/g, ' ').trim();
  return line ? Array.from(line).slice(0, 200).join('') : UNTITLED_IMPORT;
}

/** Only messages with something to show, each no earlier than the one before it (a tree's order is its times). */
export function keptMessages(messages: ImportedMessage[]): ImportedMessage[] {
  const kept: ImportedMessage[] = [];
  for (const message of messages) {
    if (!message.parts.some((part) => part.type !== 'step-start')) continue;
    const previous = kept.at(-1)?.createdAt;
    kept.push(previous && message.createdAt < previous ? { ...message, createdAt: previous } : message);
  }
  return kept;
}
