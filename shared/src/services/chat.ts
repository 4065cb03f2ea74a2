import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { chatTagNameSchema } from '../api-types/chat-tags';
import { executeRows, type Database } from '../db/client';
import { commitOnLane, commitWithoutFlush, laneFlushed, setSynchronousCommit } from '../db/commit-lane';
import { preparedQuery } from '../db/prepared-query';
import { ACTIVE_RUN_STATUSES, approvalGrants, chatSessions, messages, runs, type RunStatus } from '../db/schema';
import { newId } from '../ids';
import type { ChatRunOpening } from '../queues/catalog';
import { findInAgentConfig, loadAgentConfig } from './agent-config';
import { attachmentIdsSchema, attachmentParts } from './chat-files';
import { requireOwnFolder } from './chat-folders';
import { carriesTag, tagNamesOf, type TaggedChatSession } from './chat-tags';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from './errors';
import { inAllowedGroups, mayUseAgent } from './groups/access';
import { MAX_CHOSEN_KNOWLEDGE_BASES, readableKnowledgeBasesAmong, type ChosenKnowledgeBase } from './knowledge/knowledge-bases';
import { keysetPage, keysetQuerySchema, newestFirst } from './keyset-page';
import { defaultChatModel } from './models';
import { claimReturning, claimRun, claimUpdate, sourcesOf, unclaimedRun, type RunTransitionFields } from './run-lifecycle';
import type { Run } from './runs';
import { activeBranch, pathTo, type MessageVersions } from './chat-thread';
import { DEFAULT_SESSION_TITLE, suggestSessionTitle } from './session-title';
import { requireSavedChat } from './temporary-chats';

export type ChatSession = typeof chatSessions.$inferSelect;
/** A stored message as services return it (the generated search vector is never read). */
export type ChatMessage = Omit<typeof messages.$inferSelect, 'searchVector'>;
/** A message of the shown branch, with where it sits among its versions. */
export type ThreadMessage = ChatMessage & { versions: MessageVersions };

export const createSessionInputSchema = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  agentId: z.string().max(100).optional(),
  /** A temporary chat (temporary-chats.ts): in no list, search or memory, deleted after a day without use. */
  temporary: z.boolean().optional(),
});

/** PATCH /api/sessions/:id: a new name, pinning to the top of the list, archiving, filing in a folder, or several. */
export const updateSessionInputSchema = z
  .object({
    title: z.string().trim().min(1, 'Give the chat a name').max(200, 'Keep the name under 200 characters'),
    pinned: z.boolean(),
    archived: z.boolean(),
    /** The user's folder to file the chat in; null takes it out of its folder. */
    folderId: z.string().min(1).max(100).nullable(),
    /** false keeps a temporary chat: it becomes a chat like any other (a chat cannot become temporary). */
    temporary: z.literal(false, { error: 'A chat can only stop being temporary (send false)' }),
  })
  .partial()
  .refine(
    (input) => input.title !== undefined || input.pinned !== undefined || input.archived !== undefined || input.folderId !== undefined || input.temporary !== undefined,
    'Send a title, pinned, archived, folderId or temporary',
  );
export type UpdateSessionInput = z.infer<typeof updateSessionInputSchema>;

/** Sampling settings a chat may set for its runs (the model's own defaults when left out). */
const samplingFields = {
  temperature: z.number().min(0, 'Use a temperature from 0 to 2').max(2, 'Use a temperature from 0 to 2').optional(),
  maxOutputTokens: z.number().int('Use a whole number of tokens').min(1, 'Allow at least 1 token').max(1_000_000, 'Allow at most 1,000,000 tokens').optional(),
};

/** Options of a run, without its question: what regenerating an answer takes. */
export const runOptionsSchema = z.object({
  agentId: z.string().max(100).optional(),
  modelId: z.string().max(100).optional(),
  enableTools: z.boolean().default(true),
  enableThinking: z.boolean().default(false),
  /** Replaces the agent's system prompt for this run. */
  systemPrompt: z.string().max(20_000).optional(),
  ...samplingFields,
  /**
   * Knowledge bases the user chose for this question (the composer's `#`): each must be theirs or
   * shared with them; the run offers a search over exactly these, even with tools off.
   */
  knowledgeBaseIds: z
    .array(z.string().min(1).max(100))
    .min(1, 'Choose at least one knowledge base, or leave knowledgeBaseIds out')
    .max(MAX_CHOSEN_KNOWLEDGE_BASES, `Choose at most ${MAX_CHOSEN_KNOWLEDGE_BASES} knowledge bases`)
    .refine((ids) => new Set(ids).size === ids.length, 'Choose each knowledge base once')
    .optional(),
});
export type RunOptionsInput = z.infer<typeof runOptionsSchema>;

/** A message and its run's options. */
export const startRunInputSchema = runOptionsSchema
  .extend({
    content: z.string().trim().max(100_000),
    /** Files uploaded to the session (POST /api/sessions/:id/files) that the message carries. */
    attachments: attachmentIdsSchema.optional(),
  })
  // A message is words, files or both.
  .refine((input) => input.content.length > 0 || (input.attachments?.length ?? 0) > 0, { message: 'Write a message', path: ['content'] });
export type StartRunInput = z.infer<typeof startRunInputSchema>;

/**
 * `owner`: the user (as an Asker when they may be an admin or in groups: the agent must be theirs to
 * use; a bare id is a user in no group). `id`: a caller that must find its chat again after a crash
 * (a schedule's fire) names it itself.
 */
export async function createChatSession(db: Database, owner: Asker | string, input: z.infer<typeof createSessionInputSchema>, id = newId('chatSession')): Promise<ChatSession> {
  const asker: Asker = typeof owner === 'string' ? { userId: owner } : owner;
  const userId = asker.userId;
  if (input.agentId) await requireAgent(db, input.agentId, asker);
  const [session] = await insertChatSession(db).execute({
    id,
    userId,
    agentId: input.agentId ?? null,
    title: input.title ?? DEFAULT_SESSION_TITLE,
    titleSetByUser: input.title !== undefined,
    temporary: input.temporary ?? false,
  });
  rememberUnusedSession(session!);
  return session!;
}

/**
 * Sessions this process created that have had no question yet, as created. The first question to
 * one of them needs no session read (askInSession): its statement re-checks what it assumed, so a
 * session changed elsewhere (another API process, a deletion) only costs the read after all. Bounded,
 * oldest forgotten first.
 */
const unusedSessions = new Map<string, ChatSession>();
const UNUSED_SESSIONS_KEPT = 10_000;

function rememberUnusedSession(session: ChatSession): void {
  unusedSessions.set(session.id, session);
  if (unusedSessions.size > UNUSED_SESSIONS_KEPT) unusedSessions.delete(unusedSessions.keys().next().value!);
}

const insertChatSession = preparedQuery((db) =>
  db
    .insert(chatSessions)
    .values({ id: sql.placeholder('id'), userId: sql.placeholder('userId'), agentId: sql.placeholder('agentId'), title: sql.placeholder('title'), titleSetByUser: sql.placeholder('titleSetByUser'), temporary: sql.placeholder('temporary') })
    .returning()
    .prepare('insert_chat_session'),
);

export const sessionListQuerySchema = keysetQuerySchema.extend({
  /** `true`: only the pinned chats; `false`: only the others (the sidebar lists them apart). */
  pinned: z.enum(['true', 'false']).optional(),
  /** `true`: only the archived chats; otherwise only the others. */
  archived: z.enum(['true', 'false']).optional(),
  /** `none`: only the chats in no folder; a folder's id: only its chats; absent: all. */
  folder: z.string().min(1).max(100).optional(),
  /** Only the chats that carry the user's tag of this name (in any case). */
  tag: chatTagNameSchema.optional(),
});
export type SessionListQuery = z.input<typeof sessionListQuerySchema>;

/** The user's sessions with their tags, most recently active first, a page at a time (see keyset-page.ts); temporary chats are never listed. */
export async function listChatSessions(db: Database, userId: string, query: SessionListQuery = {}): Promise<{ items: TaggedChatSession[]; nextCursor: string | null }> {
  const { limit, cursor, pinned, archived, folder, tag } = sessionListQuerySchema.parse(query);
  const order = newestFirst(chatSessions.updatedAt, chatSessions.id);
  const pinnedFilter = pinned === undefined ? undefined : pinned === 'true' ? isNotNull(chatSessions.pinnedAt) : isNull(chatSessions.pinnedAt);
  const archivedFilter = archived === 'true' ? isNotNull(chatSessions.archivedAt) : isNull(chatSessions.archivedAt);
  const folderFilter = folder === undefined ? undefined : folder === 'none' ? isNull(chatSessions.folderId) : eq(chatSessions.folderId, folder);
  const tagFilter = tag === undefined ? undefined : carriesTag(userId, tag);
  const rows = await db
    .select({ session: chatSessions, tags: tagNamesOf(), position: order.position })
    .from(chatSessions)
    .where(and(eq(chatSessions.userId, userId), eq(chatSessions.temporary, false), pinnedFilter, archivedFilter, folderFilter, tagFilter, order.after(cursor)))
    .orderBy(...order.orderBy)
    .limit(limit + 1);
  return keysetPage(rows, limit, (row) => ({ ...row.session, tags: row.tags }));
}

/** The session if it belongs to this user; otherwise NotFound (never revealing that it exists). */
const sessionOfUser = preparedQuery((db) =>
  db
    .select()
    .from(chatSessions)
    .where(and(eq(chatSessions.id, sql.placeholder('id')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .prepare('chat_session_of_user'),
);

export async function getChatSessionFor(db: Database, id: string, userId: string): Promise<ChatSession> {
  const [session] = await sessionOfUser(db).execute({ id, userId });
  if (!session) throw new NotFoundError('Session', id);
  return session;
}

const messageColumns = {
  id: messages.id,
  sessionId: messages.sessionId,
  role: messages.role,
  parts: messages.parts,
  runId: messages.runId,
  // The worker stores an answer without a parent: it follows the question its run answers.
  parentId: sql<string | null>`coalesce(${messages.parentId}, case when ${messages.role} = 'assistant' then ${runs.replyToMessageId} end)`.as('parent_id'),
  selectedAt: messages.selectedAt,
  createdAt: messages.createdAt,
};

/** Every message of a session (every branch), oldest first. */
const messagesOfSession = preparedQuery((db) =>
  db
    .select(messageColumns)
    .from(messages)
    .leftJoin(runs, eq(runs.id, messages.runId))
    .where(eq(messages.sessionId, sql.placeholder('sessionId')))
    .orderBy(asc(messages.createdAt), asc(messages.id))
    .prepare('messages_of_session'),
);
/**
 * A session's messages as `m` (each with its run as `r`) for statements that aggregate them into
 * JSON, with the parent as messageColumns reads it and times in epoch ms truncated as the driver
 * truncates them into Dates.
 */
const sessionMessagesJson = {
  from: (sessionId: SQL) => sql`from ${messages} m left join ${runs} r on r.id = m.run_id where m.session_id = ${sessionId}`,
  parentId: sql.raw(`coalesce(m.parent_id, case when m.role = 'assistant' then r.reply_to_message_id end)`),
  selectedAt: sql.raw('floor(extract(epoch from m.selected_at) * 1000)'),
  createdAt: sql.raw('floor(extract(epoch from m.created_at) * 1000)'),
};

/** A message as the chat claim returns it: messageColumns' fields in order (times as sessionMessagesJson gives them). */
type MessageTuple = [id: string, sessionId: string, role: ChatMessage['role'], parts: unknown[], runId: string | null, parentId: string | null, selectedAt: number | null, createdAt: number];

/**
 * The claim of a chat run's first attempt (claimRun's statement) returning, with the run, its
 * session's messages as messagesOfSession reads them and the session's grants: what the run's
 * setup reads knowing only the run, in the claim's round trip instead of two more statements.
 */
const claimWithSessionContext = preparedQuery((db) =>
  claimUpdate(db)
    .returning({
      ...claimReturning(),
      sessionMessages: sql<MessageTuple[]>`coalesce((
        select json_agg(json_build_array(m.id, m.session_id, m.role, m.parts, m.run_id,
          ${sessionMessagesJson.parentId}, ${sessionMessagesJson.selectedAt}, ${sessionMessagesJson.createdAt}) order by m.created_at, m.id)
        ${sessionMessagesJson.from(sql`${runs}.session_id`)}
      ), '[]'::json)`,
      sessionGrants: sql<string[]>`coalesce((select json_agg(g.tool_name) from ${approvalGrants} g where g.session_id = ${runs}.session_id), '[]'::json)`,
      // The claim does not wait for its WAL flush (~1 ms, more under load) before the model call. A
      // database crash can lose it only with nothing after it: every later durable write flushes it
      // too (WAL is one sequence), and a run whose claim was lost is queued again, as if its first
      // attempt had died before claiming. (A standalone run's claim is its call's journal begin:
      // that one flushes.)
      commitWithoutFlush,
    })
    .prepare('claim_chat_run_with_context'),
);

/** What a first attempt's claim reads with the run: its session's messages and grants. */
export type ChatRunContext = { messages: ChatMessage[]; grants: Set<string> };

/**
 * The run and context an opening (ChatRunOpening) stands for, as its claim will return them: the
 * run running, its session holding the question alone. `grants` starts empty for the claim to fill.
 */
export function openedChatRun(runId: string, opening: ChatRunOpening): { run: Run; context: ChatRunContext } {
  const now = new Date();
  const { userId, sessionId, agentId, modelId, options, questionId } = opening;
  const run: Run = {
    id: runId,
    kind: 'chat',
    userId,
    sessionId,
    replyToMessageId: questionId,
    agentId,
    modelId,
    toolId: null,
    status: 'running',
    options,
    finishReason: null,
    steps: 0,
    usage: null,
    cost: null,
    hitStepLimit: false,
    error: null,
    checkpoint: null,
    result: null,
    idempotencyKey: null,
    queueJobId: runId,
    startedAt: now,
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const question: ChatMessage = { id: questionId, sessionId, role: 'user', parts: [{ type: 'text', text: opening.question }], runId, parentId: null, selectedAt: null, createdAt: now };
  return { run, context: { messages: [question], grants: new Set() } };
}

/**
 * Claims a chat run (claimRun). With `withContext` (a first attempt, which has no checkpoint to
 * start from) the claim also returns its session's messages (every branch, oldest first) and
 * grants when it claimed the run; a run the table will not start comes back as claimRun returns it.
 */
export async function claimChatRun(
  db: Database,
  runId: string,
  { withContext }: { withContext: boolean },
): Promise<{ run: Run; claimed: boolean; firstStart: boolean; context?: ChatRunContext }> {
  if (!withContext) return claimRun(db, runId);
  const [row] = await claimWithSessionContext(db).execute({ runId });
  if (!row) return unclaimedRun(db, runId);
  const { firstStart, sessionMessages, sessionGrants, commitWithoutFlush: _commitWithoutFlush, ...run } = row;
  const toMessage = ([id, sessionId, role, parts, messageRunId, parentId, selectedAt, createdAt]: MessageTuple): ChatMessage =>
    ({ id, sessionId, role, parts, runId: messageRunId, parentId, selectedAt: selectedAt === null ? null : new Date(selectedAt), createdAt: new Date(createdAt) });
  return { run, claimed: true, firstStart, context: { messages: sessionMessages.map(toMessage), grants: new Set(sessionGrants) } };
}

export async function listSessionMessages(db: Database, sessionId: string): Promise<ChatMessage[]> {
  return messagesOfSession(db).execute({ sessionId }) as Promise<ChatMessage[]>;
}

/** The tree of a session without the messages' contents: all a new question needs to find its parent. */
const threadNodesOfSession = preparedQuery((db) =>
  db
    .select({ id: messageColumns.id, parentId: messageColumns.parentId, selectedAt: messageColumns.selectedAt, createdAt: messageColumns.createdAt })
    .from(messages)
    .leftJoin(runs, eq(runs.id, messages.runId))
    .where(eq(messages.sessionId, sql.placeholder('sessionId')))
    .prepare('thread_nodes_of_session'),
);

/** The last message of the shown branch (null for an empty session): a new question follows it. */
export async function lastShownMessageId(db: Database, sessionId: string): Promise<string | null> {
  return activeBranch(await threadNodesOfSession(db).execute({ sessionId })).at(-1)?.node.id ?? null;
}

/**
 * The session (only the owner's) with its thread nodes as `[id, parentId, selectedAt, createdAt]`
 * tuples, times in epoch ms truncated as the driver truncates them into Dates, and the parent as
 * `messageColumns.parentId` reads it: the owner check and the new question's parent in one statement.
 */
const sessionWithThreadNodes = preparedQuery((db) =>
  db
    .select({
      session: chatSessions,
      nodes: sql<[string, string | null, number | null, number][]>`coalesce((
        select json_agg(json_build_array(m.id, ${sessionMessagesJson.parentId}, ${sessionMessagesJson.selectedAt}, ${sessionMessagesJson.createdAt}))
        ${sessionMessagesJson.from(sql`${chatSessions}.id`)}
      ), '[]'::json)`,
    })
    .from(chatSessions)
    .where(and(eq(chatSessions.id, sql.placeholder('id')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .prepare('chat_session_with_thread_nodes'),
);

/**
 * A session of `userId` (else NotFoundError) and the last message of its shown branch, which a new
 * question follows: getChatSessionFor and lastShownMessageId in one round trip (the enqueue path).
 */
export async function getChatSessionWithLastShown(db: Database, id: string, userId: string): Promise<{ session: ChatSession; lastShownMessageId: string | null }> {
  const [row] = await sessionWithThreadNodes(db).execute({ id, userId });
  if (!row) throw new NotFoundError('Session', id);
  const nodes = row.nodes.map(([nodeId, parentId, selectedAt, createdAt]) => ({ id: nodeId, parentId, selectedAt: selectedAt === null ? null : new Date(selectedAt), createdAt: new Date(createdAt) }));
  return { session: row.session, lastShownMessageId: activeBranch(nodes).at(-1)?.node.id ?? null };
}

/** The branch of the conversation the user sees, oldest first, each message with its versions. */
export async function listThreadMessages(db: Database, sessionId: string): Promise<ThreadMessage[]> {
  return activeBranch(await listSessionMessages(db, sessionId)).map(({ node, versions }) => ({ ...node, versions }));
}

/**
 * What a chat run's model reads: the branch from the first message to the question the run answers
 * (that question included), never the run's own earlier answer. A run from before branches existed
 * reads the whole session.
 */
export async function loadRunHistory(db: Database, run: Pick<Run, 'id' | 'sessionId' | 'replyToMessageId'>): Promise<ChatMessage[]> {
  if (!run.sessionId) return [];
  return runHistory(await listSessionMessages(db, run.sessionId), run);
}

/** loadRunHistory from the session's messages already read (claimChatRun). */
export function runHistory(rows: ChatMessage[], run: Pick<Run, 'id' | 'sessionId' | 'replyToMessageId'>): ChatMessage[] {
  if (!run.sessionId) return [];
  const history = run.replyToMessageId ? pathTo(rows, run.replyToMessageId) : rows;
  return history.filter((row) => row.runId !== run.id || row.role === 'user');
}

/**
 * Renames the session (the user's choice: automatic titles no longer change it), pins or unpins it,
 * archives or restores it, files it in one of the user's folders or takes it out, keeps a temporary chat. None is activity: the chat keeps its place among the most recently
 * active. An archived chat is out of the lists, pinned ones too: archiving unpins it.
 */
export async function updateChatSession(db: Database, session: ChatSession, input: UpdateSessionInput): Promise<TaggedChatSession> {
  const { title, pinned, archived, folderId, temporary } = updateSessionInputSchema.parse(input);
  // A temporary chat is in no list: there is nothing to pin it in, archive it from or file it into
  // (unless the same request keeps it).
  const kept = { id: session.id, temporary: temporary ?? session.temporary };
  if (pinned !== undefined) requireSavedChat(kept, 'pinned');
  if (archived !== undefined) requireSavedChat(kept, 'archived');
  if (folderId !== undefined) requireSavedChat(kept, 'moved to a folder');
  if (folderId) await requireOwnFolder(db, session.userId, folderId);
  const [renamed] = await db
    .update(chatSessions)
    .set({
      ...(title === undefined ? {} : { title, titleSetByUser: true }),
      ...(pinned === undefined ? {} : { pinnedAt: pinned ? (session.pinnedAt ?? new Date()) : null }),
      ...(archived === undefined ? {} : { archivedAt: archived ? (session.archivedAt ?? new Date()) : null, ...(archived ? { pinnedAt: null } : {}) }),
      ...(folderId === undefined ? {} : { folderId }),
      ...(temporary === undefined ? {} : { temporary }),
      // Kept as stored, to the microsecond: writing back the millisecond Date read earlier could put
      // the chat below one made in the same millisecond.
      updatedAt: sql`${chatSessions.updatedAt}`,
    })
    .where(eq(chatSessions.id, session.id))
    .returning({ ...getTableColumns(chatSessions), tags: tagNamesOf() });
  if (!renamed) throw new NotFoundError('Session', session.id);
  return renamed;
}

/** Deletes the session with its messages and finished runs; refused while a run is going. */
export async function deleteChatSession(db: Database, session: ChatSession): Promise<void> {
  const active = await getActiveRun(db, session.id);
  if (active) throw new ActiveRunConflictError(active.id, 'Stop the running answer before deleting this chat');
  await db.transaction(async (tx) => {
    await tx.delete(runs).where(and(eq(runs.sessionId, session.id), eq(runs.kind, 'chat')));
    await tx.delete(chatSessions).where(eq(chatSessions.id, session.id));
  });
}

/** Makes `messageId` the shown version at its fork (and with it the branch below it). */
export async function selectMessageVersion(db: Database, session: ChatSession, messageId: string): Promise<void> {
  const updated = await db
    .update(messages)
    .set({ selectedAt: new Date() })
    .where(and(eq(messages.id, messageId), eq(messages.sessionId, session.id)))
    .returning({ id: messages.id });
  if (updated.length === 0) throw new NotFoundError('Message', messageId);
}

async function requireMessage(db: Database, session: ChatSession, messageId: string): Promise<ChatMessage> {
  const rows = await db
    .select(messageColumns)
    .from(messages)
    .leftJoin(runs, eq(runs.id, messages.runId))
    .where(and(eq(messages.id, messageId), eq(messages.sessionId, session.id)));
  if (!rows[0]) throw new NotFoundError('Message', messageId);
  return rows[0];
}

/** The session's run that is queued, running or awaiting approval, if any. */
export async function getActiveRun(db: Database, sessionId: string): Promise<Run | undefined> {
  const [run] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.sessionId, sessionId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])));
  return run;
}

/** The agent `agentId`, which the asker may use (its "Who can use it"). @throws {ForbiddenError} when they may not */
async function requireAgent(db: Database, agentId: string, asker: Asker) {
  const agent = await findInAgentConfig(db, (config) => config.agents.find((candidate) => candidate.id === agentId));
  if (!agent) throw new InvalidInputError(`Agent '${agentId}' does not exist`, [{ path: ['agentId'], message: 'Unknown agent' }]);
  if (!mayUseAgent(agent, asker)) throw new ForbiddenError(`Agent '${agent.name}' is only for some groups of users, and you are in none of them: pick another agent or ask an admin`);
  return agent;
}

/** Agent for a run: the requested one, the session's, or the default agent (else the oldest). Read through the config cache. */
async function resolveAgent(db: Database, requested: string | undefined, session: ChatSession, asker: Asker) {
  const id = requested ?? session.agentId ?? undefined;
  if (id) return requireAgent(db, id, asker);
  const { agents: rows } = await loadAgentConfig(db);
  return rows.find((agent) => agent.isDefault) ?? rows[0] ?? null;
}

/**
 * Model for a run: the requested one, the agent's, or the default model (flagged default, else the
 * oldest enabled chat model everyone may use). Read through the config cache. A model for admins
 * only, or limited to groups the asker is not in, is refused when they name it; their agent's model
 * is the admin's choice and stands.
 */
async function resolveModel(db: Database, requested: string | undefined, agentModelId: string | null | undefined, asker: Asker) {
  const id = requested ?? agentModelId ?? undefined;
  const model = id
    ? await findInAgentConfig(db, (config) => config.models.find((candidate) => candidate.id === id))
    : await loadAgentConfig(db).then(({ models }) => defaultChatModel(models));
  if (!model) {
    throw new InvalidInputError(
      id ? `Model '${id}' does not exist` : 'No model is configured: an admin must add one (or set LLM_BASE_URL and LLM_MODEL)',
      [{ path: ['modelId'], message: id ? 'Unknown model' : 'No model configured' }],
    );
  }
  if (!model.enabled) throw new InvalidInputError(`Model '${model.name}' is disabled`, [{ path: ['modelId'], message: 'Model disabled' }]);
  if (model.transcribesSpeech) {
    throw new InvalidInputError(`Model '${model.name}' transcribes speech for dictation and does not answer chats: pick another`, [{ path: ['modelId'], message: 'Transcription model' }]);
  }
  if (model.embedsText) {
    throw new InvalidInputError(`Model '${model.name}' embeds text for knowledge bases and does not answer chats: pick another`, [{ path: ['modelId'], message: 'Embedding model' }]);
  }
  if (model.generatesImages) {
    throw new InvalidInputError(`Model '${model.name}' generates images for the image tool and does not answer chats: pick another`, [{ path: ['modelId'], message: 'Image model' }]);
  }
  if (requested && model.adminsOnly && !asker.isAdmin) {
    // Like a model outside the asker's groups: a choice the request may not make, not a malformed one.
    throw new ForbiddenError(`Model '${model.name}' is for administrators only: pick another`);
  }
  if (requested && !inAllowedGroups(model, asker)) {
    throw new ForbiddenError(`Model '${model.name}' is only for some groups of users, and you are in none of them: pick another model or ask an admin`);
  }
  return model;
}

/**
 * Checks an agent and a model a run will be asked for later (a schedule's) as a send checks them now:
 * the agent exists and the asker may use it; the model exists, is enabled and the asker may pick it
 * (for admins only, limited to groups). @throws {ForbiddenError} for one for admins only or outside the asker's groups
 */
export async function checkRunChoices(db: Database, asker: Asker, choices: { agentId?: string | null; modelId?: string | null }): Promise<void> {
  if (choices.agentId) await requireAgent(db, choices.agentId, asker);
  if (choices.modelId) await resolveModel(db, choices.modelId, undefined, asker);
}

/**
 * The fields of a PostgreSQL error, thrown by the driver itself or wrapped by drizzle (as `cause`):
 * postgres.js names them `constraint_name` and `column_name`, PGlite `constraint` and `column`.
 */
function postgresErrorFields(error: unknown): { code?: string; constraint?: string; column?: string } {
  type Fields = { code?: string; constraint_name?: string; constraint?: string; column_name?: string; column?: string };
  const outer = error as (Fields & { cause?: Fields }) | undefined;
  const cause = outer?.cause;
  return {
    code: outer?.code ?? cause?.code,
    constraint: outer?.constraint_name ?? cause?.constraint_name ?? cause?.constraint,
    column: outer?.column_name ?? cause?.column_name ?? cause?.column,
  };
}

function isActiveRunViolation(error: unknown): boolean {
  const { code, constraint } = postgresErrorFields(error);
  return code === '23505' && (constraint === undefined || constraint === 'runs_one_active_per_session_idx');
}

function isIdempotencyViolation(error: unknown): boolean {
  return postgresErrorFields(error).constraint === 'runs_idempotency_idx';
}

export class ActiveRunConflictError extends ConflictError {
  constructor(
    readonly activeRunId: string,
    message = `This session already has an active run (${activeRunId}); wait for it or cancel it`,
  ) {
    super(message, { activeRunId });
  }
}

/**
 * A run stored by startChatRun and the others. Its insert may have committed without waiting for
 * its WAL flush (it joined other requests' on the commit lane, commit-lane.ts), so the caller's
 * queue add can overlap the flush; `durable` resolves once the run is on disk, and nobody may be
 * told about the run (a 202) before it has.
 */
export type StartedRun = { run: Run; created: boolean; durable: Promise<void>; opening?: ChatRunOpening };

/** A first question this long (with its system prompt and the user's instructions) is not carried in its job; its worker reads it with the claim. */
export const OPENING_MAX_CHARS = 8_000;

/** A created run's opening (ChatRunOpening): only for a session's first question, whose history is that question alone. */
function openingOf(run: Run, question: Question): ChatRunOpening | undefined {
  if (question.kind !== 'new' || question.parentId !== null || question.attachments?.length || !run.sessionId || !run.replyToMessageId) return undefined;
  const { systemPrompt = '', userInstructions = '' } = run.options as { systemPrompt?: string; userInstructions?: string };
  if (question.content.length + systemPrompt.length + userInstructions.length > OPENING_MAX_CHARS) return undefined;
  const { userId, sessionId, agentId, modelId, options, replyToMessageId } = run;
  return { userId, sessionId, agentId, modelId, options, questionId: replyToMessageId, question: question.content };
}

/**
 * Who asks for a run: the user, whether they are an admin (models for admins only), the groups they
 * are in (models and agents limited to groups) and their custom instructions, which the caller already holds (the API's signed-in user), so starting a run reads
 * no user row; the run carries the instructions to the worker.
 */
export type Asker = { userId: string; userInstructions?: string | null; isAdmin?: boolean; groupIds?: readonly string[] };

/** Where a run's question comes from: a new message (after `parentId`, null for the first) with the session's files it carries, or an existing one. */
type Question = { kind: 'new'; content: string; attachments?: string[]; parentId: string | null } | { kind: 'existing'; messageId: string };

/**
 * Stores the user's message and a queued chat run in one statement (startRunStatement). The database's partial unique
 * index guarantees one active run per session; an idempotency key returns the run it created before.
 * The message follows the shown branch's last message unless `parentMessageId` says otherwise.
 */
export async function startChatRun(
  db: Database,
  options: Asker & { session: ChatSession; input: StartRunInput; idempotencyKey?: string; parentMessageId?: string | null },
): Promise<StartedRun> {
  const { session, input } = options;
  const parentId = options.parentMessageId !== undefined ? options.parentMessageId : await lastShownMessageId(db, session.id);
  return createRun(db, { ...options, options: input, question: { kind: 'new', content: input.content, attachments: input.attachments, parentId } });
}

/**
 * Asks a new question in session `sessionId` of `userId` (POST /api/sessions/:id/runs): reads the
 * session with its shown branch's last message (the owner check and the question's parent, one
 * statement), then startChatRun. The first question to a session this process created and nothing
 * has used since skips that read: its statement stores the run only if the session is still the
 * owner's, with the same agent and no message (see startRunStatement's `unusedSession`), else this
 * falls back to the read.
 */
export async function askInSession(
  db: Database,
  options: Asker & { sessionId: string; input: StartRunInput; idempotencyKey?: string },
): Promise<StartedRun> {
  const { userId, userInstructions, isAdmin, groupIds, sessionId, input, idempotencyKey } = options;
  const unused = unusedSessions.get(sessionId);
  // Files were uploaded into the session since it was created: the usual path checks them.
  if (unused?.userId === userId && !input.attachments?.length) {
    unusedSessions.delete(sessionId);
    const question: Question = { kind: 'new', content: input.content, parentId: null };
    const run = await createRun(db, { userId, userInstructions, isAdmin, groupIds, session: unused, options: input, question, idempotencyKey, unusedSession: true }).catch((error: unknown) => {
      if (isUnusedSessionMiss(error)) return undefined;
      throw error;
    });
    if (run) return run;
  }
  const { session, lastShownMessageId } = await getChatSessionWithLastShown(db, sessionId, userId);
  return startChatRun(db, { userId, userInstructions, isAdmin, groupIds, session, input, idempotencyKey, parentMessageId: lastShownMessageId });
}

/**
 * Answers a question again: `messageId` is an answer (its question is asked again) or a question
 * without one. The earlier answers stay as versions of the new one.
 */
export async function regenerateAnswer(
  db: Database,
  options: Asker & { session: ChatSession; messageId: string; input: RunOptionsInput; idempotencyKey?: string },
): Promise<StartedRun> {
  const message = await requireMessage(db, options.session, options.messageId);
  const questionId = message.role === 'assistant' ? message.parentId : message.id;
  if (!questionId) throw new InvalidInputError('This answer has no question to ask again', [{ path: ['messageId'], message: 'No question' }]);
  return createRun(db, { ...options, options: options.input, question: { kind: 'existing', messageId: questionId } });
}

/** Asks an edited question: a new version of user message `messageId`, on a branch of its own; the old one stays reachable. */
export async function editAndResend(
  db: Database,
  options: Asker & { session: ChatSession; messageId: string; input: StartRunInput; idempotencyKey?: string },
): Promise<StartedRun> {
  const message = await requireMessage(db, options.session, options.messageId);
  if (message.role !== 'user') throw new InvalidInputError('Only your own messages can be edited', [{ path: ['messageId'], message: 'Not a user message' }]);
  return startChatRun(db, { ...options, parentMessageId: message.parentId });
}

/**
 * A new chat run, its question (when new) and the session's title and time, in one statement: data-
 * modifying CTEs run atomically like a transaction, without the BEGIN and COMMIT round trips, and the
 * statement is built once (enqueue is the API's hottest write). The chat-turn job is enqueued under
 * the run's id.
 */
function startRunStatement(db: Database, withQuestion: boolean, name: string, unusedSession = false) {
  const created = db.$with('created_run').as(
    db
      .insert(runs)
      .values({
        id: sql.placeholder('runId'),
        kind: 'chat',
        userId: sql.placeholder('userId'),
        sessionId: sql.placeholder('sessionId'),
        replyToMessageId: sql.placeholder('messageId'),
        agentId: sql.placeholder('agentId'),
        modelId: sql.placeholder('modelId'),
        options: sql.placeholder('options'),
        idempotencyKey: sql.placeholder('idempotencyKey'),
        queueJobId: sql.placeholder('runId'),
      })
      .returning(),
  );
  // An unused session (askInSession) is only touched while it is still as remembered: the owner's,
  // with the same agent, without a message, and keeping a title the user has set since.
  const unusedSessionGuard = unusedSession
    ? and(
        eq(chatSessions.userId, sql.placeholder('userId')),
        sql`${chatSessions.agentId} is not distinct from ${sql.placeholder('sessionAgentId')}::text`,
        sql`not exists (select 1 from ${messages} where ${messages.sessionId} = ${chatSessions.id})`,
      )
    : undefined;
  const touched = db.$with('touched_session').as(
    db
      .update(chatSessions)
      // now() explicitly: an $onUpdate default would be evaluated once, when the statement is built.
      .set({
        title: unusedSession ? sql`case when ${chatSessions.titleSetByUser} then ${chatSessions.title} else ${sql.placeholder('title')} end` : sql`${sql.placeholder('title')}`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), unusedSessionGuard))
      .returning({ id: chatSessions.id }),
  );
  // The question's session comes from the guarded update: a session that is not as remembered
  // leaves it null, and the NOT NULL column refuses the whole statement (isUnusedSessionMiss).
  const questionSession = unusedSession ? sql`(select ${sql.identifier('id')} from ${sql.identifier('touched_session')})` : sql.placeholder('sessionId');
  const question = db.$with('question').as(
    db
      .insert(messages)
      .values({ id: sql.placeholder('messageId'), sessionId: questionSession, role: 'user', parts: sql.placeholder('parts'), runId: sql.placeholder('runId'), parentId: sql.placeholder('parentId') })
      .returning({ id: messages.id }),
  );
  // synchronous_commit as commitOnLane asks: off when the insert joins others on the lane.
  return (withQuestion ? db.with(created, touched, question) : db.with(created, touched))
    .select()
    .from(created)
    .where(sql`${setSynchronousCommit} is not null`)
    .prepare(name);
}
const startRunWithNewQuestion = preparedQuery((db) => startRunStatement(db, true, 'start_run_new_question'));
const startRunInUnusedSession = preparedQuery((db) => startRunStatement(db, true, 'start_run_unused_session', true));
const startRunForQuestion = preparedQuery((db) => startRunStatement(db, false, 'start_run_existing_question'));

/** The statement of an unused session's first question refused it: the session is not as remembered. */
function isUnusedSessionMiss(error: unknown): boolean {
  const { code, column } = postgresErrorFields(error);
  return code === '23502' && column === 'session_id';
}

async function createRun(
  db: Database,
  options: Asker & { session: ChatSession; options: RunOptionsInput; question: Question; idempotencyKey?: string; unusedSession?: boolean },
): Promise<StartedRun> {
  const { userId, userInstructions, session, options: input, question, idempotencyKey } = options;
  if (idempotencyKey) {
    const [existing] = await db.select().from(runs).where(and(eq(runs.userId, userId), eq(runs.idempotencyKey, idempotencyKey)));
    if (existing) {
      if (existing.sessionId !== session.id) throw new ConflictError('This Idempotency-Key was already used for another session');
      return { run: existing, created: false, durable: laneFlushed(db) };
    }
  }
  const files = question.kind === 'new' && question.attachments?.length ? await attachmentParts(db, session.id, question.attachments) : [];
  const agent = await resolveAgent(db, input.agentId, session, options);
  const model = await resolveModel(db, input.modelId, agent?.modelId, options);
  // Only a send that names bases reads them: one statement, which never tells an unreadable base from a missing one.
  const chosenBases = input.knowledgeBaseIds ? await chosenKnowledgeBases(db, userId, input.knowledgeBaseIds) : undefined;
  const image = files.findIndex((file) => file.mediaType.startsWith('image/'));
  if (image !== -1 && !model.supportsImages) {
    throw new InvalidInputError(`${model.name} cannot see images: pick a model that can, or leave the images out`, [{ path: ['attachments', image], message: 'The model cannot see images' }]);
  }
  const runId = newId('run');
  const messageId = question.kind === 'new' ? newId('message') : question.messageId;
  // The first question names the session (a question of files alone, its first file), unless the user already has.
  const title =
    question.kind === 'new' && question.parentId === null && !session.titleSetByUser ? (question.content ? suggestSessionTitle(question.content) : (files[0]?.filename ?? DEFAULT_SESSION_TITLE)) : session.title;
  const runOptions = {
    enableTools: input.enableTools,
    enableThinking: input.enableThinking,
    systemPrompt: input.systemPrompt,
    temperature: input.temperature,
    maxOutputTokens: input.maxOutputTokens,
    // Left out (undefined is not stored) when the user has none.
    userInstructions: userInstructions || undefined,
    // A temporary chat's runs neither read nor write memory; the worker reads it here, not from the session.
    temporary: session.temporary || undefined,
    knowledgeBaseIds: chosenBases?.map((base) => base.id),
  };
  const values = {
    runId,
    userId,
    sessionId: session.id,
    messageId,
    agentId: agent?.id ?? null,
    modelId: model.id,
    options: runOptions,
    idempotencyKey: idempotencyKey ?? null,
    title,
  };
  try {
    const { result: [run], durable } = await commitOnLane(db, (lane, synchronousCommit) =>
      question.kind === 'new'
        ? (options.unusedSession ? startRunInUnusedSession : startRunWithNewQuestion)(lane).execute({
            ...values,
            synchronousCommit,
            parts: [...files, ...(question.content ? [{ type: 'text', text: question.content }] : []), ...(chosenBases ? [chosenKnowledgePart(chosenBases)] : [])],
            parentId: question.parentId,
            ...(options.unusedSession && { sessionAgentId: session.agentId }),
          })
        : startRunForQuestion(lane).execute({ ...values, synchronousCommit }),
    );
    return { run: run!, created: true, durable, opening: openingOf(run!, question) };
  } catch (error) {
    if (idempotencyKey && isIdempotencyViolation(error)) {
      const [existing] = await db.select().from(runs).where(and(eq(runs.userId, userId), eq(runs.idempotencyKey, idempotencyKey)));
      if (existing) return { run: existing, created: false, durable: laneFlushed(db) };
    }
    if (isActiveRunViolation(error)) {
      const active = await getActiveRun(db, session.id);
      throw new ActiveRunConflictError(active?.id ?? 'unknown');
    }
    throw error;
  }
}

/** The question's record of the bases chosen for it, shown as chips on it; the model never reads a data part. */
export type ChosenKnowledgePart = { type: 'data-knowledge-bases'; data: { bases: ChosenKnowledgeBase[] } };

function chosenKnowledgePart(bases: ChosenKnowledgeBase[]): ChosenKnowledgePart {
  return { type: 'data-knowledge-bases', data: { bases } };
}

/** The chosen bases, all readable by the user. @throws {InvalidInputError} naming each that is not (missing or not theirs alike) */
async function chosenKnowledgeBases(db: Database, userId: string, ids: readonly string[]): Promise<ChosenKnowledgeBase[]> {
  const readable = await readableKnowledgeBasesAmong(db, userId, ids);
  if (readable.length === ids.length) return readable;
  const found = new Set(readable.map((base) => base.id));
  const issues = ids.flatMap((id, index) => (found.has(id) ? [] : [{ path: ['knowledgeBaseIds', index], message: `No knowledge base '${id}' that you can read` }]));
  throw new InvalidInputError('Choose knowledge bases of yours or shared with you', issues);
}

/** How a chat run ends: its status and outcome, and the answer to store (no parts, no message). */
export type ChatRunSettlement = {
  status: 'succeeded' | 'failed' | 'cancelled';
  fields: Required<Pick<RunTransitionFields, 'finishReason' | 'error' | 'hitStepLimit' | 'steps' | 'usage' | 'checkpoint'>> & {
    /** The run's cost at its model's prices (runCost); null when the model has none. */
    cost: number | null;
  };
  parts: unknown[];
};

/**
 * Ends a chat run in one statement: moves it to its terminal status (only from a status the run
 * lifecycle allows), replaces its assistant message and touches its session, each write conditional
 * on the move, so they commit together or not at all, without BEGIN and COMMIT round trips. Returns
 * whether the run moved and, when it did not, the status that refused it (null: no such run).
 */
export async function settleChatRun(db: Database, run: Pick<Run, 'id' | 'sessionId'>, settlement: ChatRunSettlement): Promise<{ moved: true } | { moved: false; status: RunStatus | null }> {
  const { status, fields, parts } = settlement;
  const json = (value: unknown) => sql`${value === null || value === undefined ? null : JSON.stringify(value)}::jsonb`;
  const [row] = await executeRows<{ moved: boolean; status: RunStatus | null }>(db, sql`
    with moved as (
      update ${runs} set status = ${status}, finish_reason = ${fields.finishReason}, error = ${fields.error}, hit_step_limit = ${fields.hitStepLimit},
        steps = ${fields.steps}, usage = ${json(fields.usage)}, cost = ${fields.cost}, checkpoint = ${json(fields.checkpoint)}, finished_at = now(), updated_at = now()
      where id = ${run.id} and status in (${sql.join(sourcesOf(status).map((source) => sql`${source}`), sql`, `)})
      returning id
    ),
    cleared as (
      delete from ${messages} where run_id = ${run.id} and role = 'assistant' and exists (select 1 from moved)
    ),
    answer as (
      insert into ${messages} (id, session_id, role, parts, run_id)
      select ${newId('message')}, ${run.sessionId}, 'assistant', ${json(parts)}, ${run.id} where ${parts.length > 0}::boolean and exists (select 1 from moved)
    ),
    touched as (
      update ${chatSessions} set updated_at = now() where id = ${run.sessionId} and exists (select 1 from moved)
    )
    select exists (select 1 from moved) as moved, (select status from ${runs} where id = ${run.id}) as status`);
  return row!.moved ? { moved: true } : { moved: false, status: row!.status };
}
