import { z } from 'zod';

/** How many tags one chat carries at most. */
export const MAX_TAGS_PER_CHAT = 10;
/** A tag's longest name, in characters. */
export const MAX_TAG_NAME_LENGTH = 32;

/**
 * A tag's name as stored: trimmed, inner whitespace one space, 1–32 characters, no double quote
 * (the sidebar search quotes a name with spaces: `tag:"to read"`). Names compare case-insensitively.
 */
export const chatTagNameSchema = z
  .string()
  .transform((name) => name.trim().replace(/\s+/g, ' '))
  .pipe(
    z
      .string()
      .min(1, 'Give the tag a name')
      .max(MAX_TAG_NAME_LENGTH, `Keep a tag to ${MAX_TAG_NAME_LENGTH} characters`)
      .refine((name) => !name.includes('"'), 'A tag cannot contain a double quote')
      .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'A tag cannot contain control characters'),
  );

/** `PUT /api/sessions/:id/tags`: the chat's tags, replacing those it had; a name repeated in another case counts once. */
export const setChatTagsInputSchema = z.object({
  tags: z
    .array(chatTagNameSchema)
    .transform((names) => names.filter((name, index) => names.findIndex((other) => sameTag(other, name)) === index))
    .pipe(z.array(z.string()).max(MAX_TAGS_PER_CHAT, `A chat carries at most ${MAX_TAGS_PER_CHAT} tags`)),
});
export type SetChatTagsInput = z.input<typeof setChatTagsInputSchema>;

/** `PATCH /api/tags/:name`: the tag's new name; an existing tag of that name takes its chats. */
export const renameChatTagInputSchema = z.object({ name: chatTagNameSchema });

/** Whether two names are the same tag (case-insensitively). */
export function sameTag(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The sidebar search's term for chats with tag `name`: `tag:work`, `tag:"to read"`. */
export function tagSearchTerm(name: string): string {
  return /\s/.test(name) ? `tag:"${name}"` : `tag:${name}`;
}

const TAG_TERM = /(?:^|\s)tag:(?:"([^"]*)"|(\S+))/giu;

/**
 * A search split into its `tag:` terms (each chat found carries them all) and the words left;
 * a term that is no valid name (`tag:""`) is dropped.
 * @example splitTagTerms('plans tag:work tag:"to read"') // { words: 'plans', tags: ['work', 'to read'] }
 */
export function splitTagTerms(q: string): { words: string; tags: string[] } {
  const tags: string[] = [];
  const words = q.replace(TAG_TERM, (_match, quoted: string | undefined, bare: string | undefined) => {
    const parsed = chatTagNameSchema.safeParse(quoted ?? bare ?? '');
    if (parsed.success && !tags.some((tag) => sameTag(tag, parsed.data))) tags.push(parsed.data);
    return ' ';
  });
  return { words: words.replace(/\s+/g, ' ').trim(), tags };
}
