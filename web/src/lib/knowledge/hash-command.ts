/**
 * The composer's `#` menu: a `#` that starts the last word of the draft lists the user's knowledge
 * bases (their own and those shared with them) whose name holds what follows it; choosing one takes
 * the `#word` out of the box and adds the base as a chip on the message. `#https://…` stays a web
 * page to attach (web-pages.ts), never a base.
 */

/** Knowledge bases one message may name (the API's MAX_CHOSEN_KNOWLEDGE_BASES). */
export const MAX_CHOSEN_BASES = 5;

/** A base as the picker lists it; `sharedBy`: the admin who shared it, for a base that is not the user's. */
export type KnowledgeChoice = { id: string; name: string; sharedBy?: string | null };

/** What follows the `#` of the draft's last word (`#` alone: ''); undefined when the draft does not end in one. */
export function hashQuery(draft: string): string | undefined {
  const match = /(?:^|\s)#([^\s#]*)$/u.exec(draft);
  if (!match) return undefined;
  const query = match[1]!;
  return /^https?:/i.test(query) ? undefined : query.toLowerCase();
}

/** The draft without its trailing `#word` (the space before it kept, so the caret goes on typing). */
export function withoutHashQuery(draft: string): string {
  return draft.replace(/(^|\s)#[^\s#]*$/u, '$1');
}

/** Bases not chosen yet whose name starts with the query first, then those whose name holds it. */
export function matchBases<B extends KnowledgeChoice>(bases: readonly B[], query: string, chosen: readonly { id: string }[] = [], limit = 8): B[] {
  const q = query.toLowerCase();
  const open = bases.filter((base) => !chosen.some((entry) => entry.id === base.id));
  const starts = open.filter((base) => base.name.toLowerCase().startsWith(q));
  const contains = open.filter((base) => !base.name.toLowerCase().startsWith(q) && base.name.toLowerCase().includes(q));
  return [...starts, ...contains].slice(0, limit);
}

/** The bases a question carries, from its `data-knowledge-bases` part (chat.ts ChosenKnowledgePart). */
export function chosenBasesOf(parts: readonly { type: string; data?: unknown }[]): KnowledgeChoice[] {
  const part = parts.find((candidate) => candidate.type === 'data-knowledge-bases') as { data?: { bases?: unknown } } | undefined;
  const bases = part?.data?.bases;
  if (!Array.isArray(bases)) return [];
  return bases.filter((base): base is KnowledgeChoice => typeof base?.id === 'string' && typeof base?.name === 'string').map(({ id, name }) => ({ id, name }));
}

/** The send's `knowledgeBaseIds`, left out when none was chosen (a send without them costs nothing new). */
export function knowledgeOf(chosen: readonly { id: string }[]): { knowledgeBaseIds?: string[] } {
  return chosen.length > 0 ? { knowledgeBaseIds: chosen.map((base) => base.id) } : {};
}
