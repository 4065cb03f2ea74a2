import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import { renameChatTagInputSchema, setChatTagsInputSchema, type SetChatTagsInput } from '../api-types/chat-tags';
import type { Database } from '../db/client';
import { chatSessions, chatSessionTags, chatTags } from '../db/schema';
import { newId } from '../ids';
import type { ChatSession } from './chat';
import { NotFoundError } from './errors';
import { requireSavedChat } from './temporary-chats';

/**
 * A user's tags of chats (chat_tags, chat_session_tags). Every query is scoped to the acting user,
 * so another user's tag is indistinguishable from a missing one. A tag lives while a chat carries
 * it: each change of the user's tags deletes those no chat carries any more (a deleted chat leaves
 * its tags behind until then), and every read leaves them out.
 */

/** A tag as the user's list shows it: its name (as first typed) and how many chats carry it. */
export type ChatTagSummary = { name: string; chatCount: number };

/** A chat as the lists show it: with its tags' names. */
export type TaggedChatSession = ChatSession & { tags: string[] };

/** The same name in SQL whatever its case: what the unique index `chat_tags_user_name_idx` compares. */
const sameName = (name: string): SQL => sql`lower(${chatTags.name}) = lower(${name})`;

// Raw SQL below names its tables by alias: drizzle leaves columns in `sql` unqualified, which in a
// subquery would bind to the nearest table with that column name.

/** The names of the enclosing query's chat's (`chat_sessions`) tags, by name, as a JSON array: a list's tags in its own statement. */
export function tagNamesOf(): SQL<string[]> {
  return sql<string[]>`coalesce((
    select json_agg(t.name order by lower(t.name), t.name)
    from ${chatSessionTags} st inner join ${chatTags} t on t.id = st.tag_id
    where st.session_id = ${chatSessions}.id
  ), '[]'::json)`;
}

/** A filter on chat_sessions: the chat carries the user's tag `name` (in any case). */
export function carriesTag(userId: string, name: string): SQL {
  return sql`exists (select 1 from ${chatSessionTags} st inner join ${chatTags} t on t.id = st.tag_id
    where st.session_id = ${chatSessions}.id and t.user_id = ${userId} and lower(t.name) = lower(${name}))`;
}

/** The user's tags that some chat carries, by name, with how many chats carry each. */
export async function listChatTags(db: Database, userId: string): Promise<ChatTagSummary[]> {
  const rows = await db
    .select({ name: chatTags.name, chatCount: sql<number>`count(*)::int` })
    .from(chatTags)
    .innerJoin(chatSessionTags, eq(chatSessionTags.tagId, chatTags.id))
    .where(eq(chatTags.userId, userId))
    .groupBy(chatTags.id)
    .orderBy(sql`lower(${chatTags}.name)`, sql`${chatTags}.name`);
  return rows;
}

/** The chat's tags' names, by name. */
export async function tagsOfChat(db: Database, sessionId: string): Promise<string[]> {
  const [row] = await db.select({ tags: tagNamesOf() }).from(chatSessions).where(eq(chatSessions.id, sessionId));
  return row?.tags ?? [];
}

/**
 * Makes the user's tag changes take turns (to the transaction's end). Without it, one change's
 * clean-up could delete a tag another change had just found and was linking to a chat: a foreign
 * key error (a 500), or the link cascaded away unseen.
 */
function lockUserTags(db: Database, userId: string) {
  return db.execute(sql`select pg_advisory_xact_lock(hashtext(${`agentq:chat-tags:${userId}`}))`);
}

/** Deletes the user's tags no chat carries. */
async function deleteUnusedTags(db: Database, userId: string): Promise<void> {
  await db.delete(chatTags).where(and(eq(chatTags.userId, userId), sql`not exists (select 1 from ${chatSessionTags} st where st.tag_id = ${chatTags}.id)`));
}

/**
 * Gives each chat of `links` the tags `names` (valid tag names), making those the user has not got
 * yet; a name the user has in another case is that tag. Names are compared lowered by PostgreSQL,
 * as the unique index lowers them.
 */
async function addTagLinks(db: Database, userId: string, links: readonly { sessionId: string; names: readonly string[] }[]): Promise<void> {
  const pairs = links.flatMap(({ sessionId, names }) => names.map((name) => sql`(${sessionId}, ${name})`));
  if (pairs.length === 0) return;
  const names = [...new Set(links.flatMap((link) => link.names))];
  await db
    .insert(chatTags)
    .values(names.map((name) => ({ id: newId('tag'), userId, name })))
    .onConflictDoNothing();
  await db.execute(sql`insert into ${chatSessionTags} (session_id, tag_id)
    select link.session_id, t.id from (values ${sql.join(pairs, sql`, `)}) as link(session_id, name)
    inner join ${chatTags} t on t.user_id = ${userId} and lower(t.name) = lower(link.name)
    on conflict do nothing`);
}

/**
 * Gives the chat these tags (PUT /api/sessions/:id/tags), replacing those it had: a name the user
 * has as a tag in another case is that tag, a new one becomes theirs. Tags no chat carries any more
 * are deleted. A temporary chat takes none (409). @returns the chat's tags, by name.
 */
export async function setChatTags(db: Database, session: ChatSession, input: SetChatTagsInput): Promise<string[]> {
  const { tags } = setChatTagsInputSchema.parse(input);
  requireSavedChat(session, 'tagged');
  await db.transaction(async (tx) => {
    await lockUserTags(tx, session.userId);
    // Tags left unused (by a deleted chat) first: a name typed again is spelled as typed now.
    await deleteUnusedTags(tx, session.userId);
    await tx.delete(chatSessionTags).where(eq(chatSessionTags.sessionId, session.id));
    await addTagLinks(tx, session.userId, [{ sessionId: session.id, names: tags }]);
    await deleteUnusedTags(tx, session.userId);
  });
  return tagsOfChat(db, session.id);
}

/** The user's tag named `name` (any case) that a chat carries; NotFound otherwise. */
async function requireTag(db: Database, userId: string, name: string): Promise<{ id: string; name: string }> {
  await deleteUnusedTags(db, userId);
  const [tag] = await db.select({ id: chatTags.id, name: chatTags.name }).from(chatTags).where(and(eq(chatTags.userId, userId), sameName(name)));
  if (!tag) throw new NotFoundError('Tag', name);
  return tag;
}

async function tagSummary(db: Database, tagId: string): Promise<ChatTagSummary> {
  const [row] = await db
    .select({ name: chatTags.name, chatCount: sql<number>`(select count(*)::int from ${chatSessionTags} st where st.tag_id = ${chatTags}.id)` })
    .from(chatTags)
    .where(eq(chatTags.id, tagId));
  return row!;
}

/**
 * Renames the user's tag on every chat that carries it (PATCH /api/tags/:name). When the user has
 * another tag of the new name (any case), the two merge: its chats get that tag, spelled as it is.
 */
export async function renameChatTag(db: Database, userId: string, name: string, input: { name: string }): Promise<ChatTagSummary> {
  const { name: newName } = renameChatTagInputSchema.parse(input);
  return db.transaction(async (tx) => {
    await lockUserTags(tx, userId);
    const tag = await requireTag(tx, userId, name);
    const [target] = await tx.select({ id: chatTags.id }).from(chatTags).where(and(eq(chatTags.userId, userId), sameName(newName), ne(chatTags.id, tag.id)));
    if (!target) {
      await tx.update(chatTags).set({ name: newName }).where(eq(chatTags.id, tag.id));
      return tagSummary(tx, tag.id);
    }
    await tx.execute(sql`insert into ${chatSessionTags} (session_id, tag_id)
      select st.session_id, ${target.id} from ${chatSessionTags} st where st.tag_id = ${tag.id}
      on conflict do nothing`);
    await tx.delete(chatTags).where(eq(chatTags.id, tag.id));
    return tagSummary(tx, target.id);
  });
}

/** Takes the user's tag off every chat that carries it (DELETE /api/tags/:name). */
export async function deleteChatTag(db: Database, userId: string, name: string): Promise<void> {
  await db.transaction(async (tx) => {
    await lockUserTags(tx, userId);
    const tag = await requireTag(tx, userId, name);
    await tx.delete(chatTags).where(eq(chatTags.id, tag.id));
  });
}

/** Tags each new chat as its file said (an import); `names` are valid tag names, at most MAX_TAGS_PER_CHAT a chat (agentq-json.ts). */
export async function tagImportedChats(db: Database, userId: string, links: readonly { sessionId: string; names: readonly string[] }[]): Promise<void> {
  await db.transaction(async (tx) => {
    await lockUserTags(tx, userId);
    await addTagLinks(tx, userId, links);
  });
}
