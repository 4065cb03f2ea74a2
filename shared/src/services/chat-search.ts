import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { splitTagTerms } from '../api-types/chat-tags';
import type { Database } from '../db/client';
import { chatSessions, messages } from '../db/schema';
import type { ChatSession } from './chat';
import { carriesTag, tagNamesOf } from './chat-tags';
import { messageText } from './message-text';
import { containsAllTerms, englishMatch, englishRank, highlightSegments, highlightSnippet, searchTerms, type TextSegment } from './text-search';

export const searchSessionsQuerySchema = z.object({
  q: z.string().trim().min(1, 'Give the words to search for').max(200, 'Keep the search under 200 characters'),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});

/** A session the search found: its title highlighted, and the best matching message as a highlighted snippet. */
export type SessionSearchHit = {
  session: ChatSession;
  /** The chat's tags, by name. */
  tags: string[];
  rank: number;
  title: TextSegment[];
  /** The best matching message (absent when only the title matched). */
  message: { id: string; role: 'user' | 'assistant'; snippet: TextSegment[] } | null;
};

const MESSAGE_CANDIDATES = 400;
/** A title hit outranks any single message hit: the title is what the user named the chat. */
const TITLE_WEIGHT = 1;
/** A substring hit (all terms, any script) counts beside the English rank, which CJK text never gets. */
const SUBSTRING_WEIGHT = 0.5;

/** The text parts of a message as one string (JSON array text: what ILIKE looks in). */
const messageTextSql = sql`jsonb_path_query_array(${messages.parts}, 'strict $[*] ? (@.type == "text").text')::text`;

/**
 * The user's sessions whose title or message text match `q`, best first: English full-text search
 * (stemmed, ranked) together with substring matching of every term, which finds CJK words inside
 * sentences on PostgreSQL and PGlite alike. `tag:name` terms (`tag:"to read"`) keep the chats that
 * carry every such tag; with no words beside them those chats are listed, most recently active
 * first. Another user's sessions, and temporary chats, are never searched.
 */
export async function searchChatSessions(db: Database, userId: string, input: z.input<typeof searchSessionsQuerySchema>): Promise<SessionSearchHit[]> {
  const { q: query, limit } = searchSessionsQuerySchema.parse(input);
  const { words: q, tags } = splitTagTerms(query);
  const tagged = and(...tags.map((tag) => carriesTag(userId, tag)));
  if (!q && tags.length > 0) return taggedSessions(db, userId, tagged, limit);
  const terms = searchTerms(q);
  if (terms.length === 0) return [];

  const titleVector = sql`to_tsvector('english', ${chatSessions.title})`;
  const titleHits = await db
    .select()
    .from(chatSessions)
    .where(and(eq(chatSessions.userId, userId), eq(chatSessions.temporary, false), tagged, or(englishMatch(titleVector, q), containsAllTerms(chatSessions.title, terms))))
    .orderBy(desc(chatSessions.updatedAt))
    .limit(200);

  const substring = containsAllTerms(messageTextSql, terms);
  const messageHits = await db
    .select({
      id: messages.id,
      sessionId: messages.sessionId,
      role: messages.role,
      parts: messages.parts,
      rank: sql<number>`${englishRank(messages.searchVector, q)} + case when ${substring} then ${sql.raw(String(SUBSTRING_WEIGHT))} else 0 end`.as('rank'),
    })
    .from(messages)
    .innerJoin(chatSessions, eq(chatSessions.id, messages.sessionId))
    .where(and(eq(chatSessions.userId, userId), eq(chatSessions.temporary, false), tagged, or(englishMatch(messages.searchVector, q), substring)))
    .orderBy(sql`rank desc`, desc(messages.createdAt))
    .limit(MESSAGE_CANDIDATES);

  const bestMessage = new Map<string, (typeof messageHits)[number]>();
  for (const hit of messageHits) if (!bestMessage.has(hit.sessionId)) bestMessage.set(hit.sessionId, hit);

  const sessions = new Map(titleHits.map((session) => [session.id, session]));
  const missing = [...bestMessage.keys()].filter((id) => !sessions.has(id));
  if (missing.length > 0) {
    const rows = await db.select().from(chatSessions).where(and(eq(chatSessions.userId, userId), inArray(chatSessions.id, missing)));
    for (const row of rows) sessions.set(row.id, row);
  }
  const titled = new Set(titleHits.map((session) => session.id));

  const hits: Omit<SessionSearchHit, 'tags'>[] = [...sessions.values()].map((session) => {
    const best = bestMessage.get(session.id);
    const snippet = best ? highlightSnippet(messageText(best.parts), terms) : undefined;
    return {
      session,
      rank: (titled.has(session.id) ? TITLE_WEIGHT : 0) + Number(best?.rank ?? 0),
      title: highlightSegments(session.title, terms),
      message: best ? { id: best.id, role: best.role, snippet: snippet ?? [{ text: messageText(best.parts).slice(0, 160), match: false }] } : null,
    };
  });
  hits.sort((a, b) => b.rank - a.rank || b.session.updatedAt.getTime() - a.session.updatedAt.getTime());
  const best = hits.slice(0, limit);
  if (best.length === 0) return [];
  const tagRows = await db.select({ id: chatSessions.id, tags: tagNamesOf() }).from(chatSessions).where(inArray(chatSessions.id, best.map((hit) => hit.session.id)));
  const tagsOf = new Map(tagRows.map((row) => [row.id, row.tags]));
  return best.map((hit) => ({ ...hit, tags: tagsOf.get(hit.session.id) ?? [] }));
}

/** The user's chats that pass `tagged` (their tags), most recently active first: a search of tags alone. */
async function taggedSessions(db: Database, userId: string, tagged: SQL | undefined, limit: number): Promise<SessionSearchHit[]> {
  const rows = await db
    .select({ session: chatSessions, tags: tagNamesOf() })
    .from(chatSessions)
    .where(and(eq(chatSessions.userId, userId), eq(chatSessions.temporary, false), tagged))
    .orderBy(desc(chatSessions.updatedAt), desc(chatSessions.id))
    .limit(limit);
  return rows.map(({ session, tags }) => ({ session, tags, rank: 0, title: [{ text: session.title, match: false }], message: null }));
}

