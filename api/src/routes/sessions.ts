import { answersChats, setChatTagsInputSchema } from '@agentq/shared/api-types';
import { enqueueChatTurn as addChatTurn, type ChatRunOpening } from '@agentq/shared/queues';
import {
  askInSession,
  attachmentDisposition,
  chatExportQuerySchema,
  CHATS_PER_IMPORT,
  chatImportBodySchema,
  clearAnswerFeedback,
  createChatSession,
  createSessionInputSchema,
  deleteChatSession,
  editAndResend,
  reviseAnswer,
  reviseAnswerInputSchema,
  feedbackInputSchema,
  getChatSessionFor,
  getChatShare,
  getDefaultModel,
  importChats,
  shareChat,
  forkChat,
  archiveAllChats,
  deleteAllChats,
  exportAllChats,
  chatsArchive,
  exportChatFile,
  unshareChat,
  isDependencyDown,
  isTerminal,
  listAgents,
  listModels,
  mayPickModel,
  mayUseAgent,
  offersDictation,
  listChatSessions,
  listThreadMessages,
  NotFoundError,
  rateAnswer,
  regenerateAnswer,
  runOptionsSchema,
  searchChatSessions,
  sessionFeedback,
  setChatTags,
  tagsOfChat,
  updateChatSession,
  updateSessionInputSchema,
  searchSessionsQuerySchema,
  selectMessageVersion,
  sessionListQuerySchema,
  startRunInputSchema,
  transitionRun,
  type Run,
  type StartedRun,
} from '@agentq/shared/services';
import type { Context } from 'hono';
import { runs } from '@agentq/shared/db';
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentAsker, currentUser, requireUser } from '../middleware/auth';
import { enforceUsageLimit } from '../usage-limit';
import { validate } from '../validate';
import { streamNewRun, streamRunEvents } from './run-events';

const exportAllQuerySchema = z.object({ format: z.enum(['json', 'zip']).default('json') });

/** Chat imports take files: ChatGPT's conversations.json runs to megabytes (the page sends a big one in parts). */
export const CHAT_IMPORT_PATH = '/api/sessions/import';
export const CHAT_IMPORT_LIMIT_BYTES = 8 * 1024 * 1024;

const idParam = z.object({ id: z.string().min(1).max(100) });
const deleteAllQuery = z.object({ all: z.literal('true', { error: 'Send all=true to delete every chat' }) });
const messageParam = z.object({ id: z.string().min(1).max(100), messageId: z.string().min(1).max(100) });
const idempotencyHeader = z.object({ 'idempotency-key': z.string().min(1).max(200).optional() });

/**
 * What any signed-in user may pick from on the chat page: names only, no configuration or secrets.
 * `defaultModelId` is the model a run uses when neither the chat nor its agent names one (the flagged
 * default, else the oldest enabled model), so the dropdown can say which model "Default" means.
 */
export const chatOptionRoutes = new Hono<AppEnv>().get(
  '/',
  describeRoute({ tags: ['chat'], summary: 'Models and agents a user can choose for a run (ids and names only; models for admins only to admins; models and agents limited to groups to their members and admins), which model is the default, and whether dictation is available' }),
  requireUser,
  async (c) => {
    const [models, agents, defaultModel] = await Promise.all([listModels(c.get('db'), { enabled: true }), listAgents(c.get('db')), getDefaultModel(c.get('db'))]);
    const asker = currentAsker(c);
    return c.json({
      defaultModelId: defaultModel?.id ?? null,
      // A transcription or embedding model is not a chat model: it only decides whether the composer offers dictation.
      models: models.filter((model) => mayPickModel(model, asker) && answersChats(model)).map((model) => ({ id: model.id, name: model.name, supportsReasoning: model.supportsReasoning, supportsImages: model.supportsImages, isDefault: model.id === defaultModel?.id })),
      agents: agents.filter((agent) => mayUseAgent(agent, asker)).map((agent) => ({ id: agent.id, name: agent.name, isDefault: agent.isDefault, modelId: agent.modelId })),
      /** The composer shows its microphone: POST /api/transcriptions has a model this user may use. */
      dictation: offersDictation(models, asker),
    });
  },
);

/** A session as the chat page reads it: the shown branch of messages with their versions, the runs' outcomes, the active run. */
async function sessionDetail(c: Context<AppEnv>, sessionId: string, userId: string) {
  const session = await getChatSessionFor(c.get('db'), sessionId, userId);
  // The runs first, then the messages: a run ends with its status and its answer in one statement,
  // so a run read as ended has its answer in the messages read after it, and a run read as active is
  // followed live whatever the messages say. Read together, a run ending in between was shown ended
  // without its answer ("No answer.") or as running with nothing following it. The active run is
  // one of the rows read, not a second statement: read apart, it could be gone while its outcome
  // still said running, and the page showed "running" for good.
  const runRows = await c.get('db')
    .select({
      id: runs.id,
      status: runs.status,
      error: runs.error,
      finishReason: runs.finishReason,
      hitStepLimit: runs.hitStepLimit,
      steps: runs.steps,
      replyToMessageId: runs.replyToMessageId,
      // An answer's details: which model, its tokens, how long it took.
      modelId: runs.modelId,
      usage: runs.usage,
      cost: runs.cost,
      startedAt: runs.startedAt,
      finishedAt: runs.finishedAt,
    })
    .from(runs)
    .where(eq(runs.sessionId, session.id));
  const activeRun = runRows.find((run) => !isTerminal(run.status));
  const [messageRows, feedback, tags] = await Promise.all([listThreadMessages(c.get('db'), session.id), sessionFeedback(c.get('db'), session.id), tagsOfChat(c.get('db'), session.id)]);
  return {
    ...session,
    /** The chat's tags, by name. */
    tags,
    messages: messageRows,
    /** The user's ratings of its answers (👍/👎). */
    feedback,
    activeRunId: activeRun?.id ?? null,
    /** The question the active run answers: a regenerated answer replaces what follows it while it streams. */
    activeRunReplyTo: activeRun?.replyToMessageId ?? null,
    runs: runRows.map(({ replyToMessageId: _, ...outcome }) => outcome),
  };
}

/** Starts a created run (`start` enqueues its chat turn); if Redis is down the run ends failed so the session is not blocked. */
async function startOrAbandon<T>(c: Context<AppEnv>, run: Run, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    // Nothing will run it: end the run so the session is not blocked, then report the outage.
    await transitionRun(c.get('db'), run.id, 'failed', { error: 'Could not enqueue the run (queue unavailable)' });
    if (isDependencyDown(error)) throw new ApiError(503, 'service_unavailable', 'The queue is unavailable; try again shortly');
    throw error;
  }
}

/** A session's first question carries its opening (ChatRunOpening): its worker sends the model call beside its claim. */
const enqueueChatTurn = (c: Context<AppEnv>, run: Run, opening?: ChatRunOpening) => addChatTurn(c.get('queues'), run, opening);

/**
 * Enqueues a run started outside a send (a schedule's Run now) once it is on disk, as a send with
 * Redis down does: if the add fails the run ends failed and the caller gets a 503. A run that was
 * not created (an Idempotency-Key seen before) only waits for its flush.
 */
export async function enqueueStartedRun(c: Context<AppEnv>, { run, created, durable, opening }: StartedRun): Promise<void> {
  if (!created) return durable;
  await startOrAbandon(c, run, async () => void (await Promise.all([durable, enqueueChatTurn(c, run, opening)])));
  c.var.createdRuns.remember(run);
}

/**
 * Adds a created run's job once its 202 is written: the answer leaves before the worker the add
 * wakes competes with it for the CPU (p50 one at a time 4.7–5.5 → 4.0–4.1 ms on two cores, the
 * first token unchanged). The run is on disk already, so a 202 still means it will run: if the add
 * fails, the run stays queued and the workers' reconciler enqueues it within seconds
 * (worker/src/reconciler.ts). With Redis known to be down the add comes first, for the 503.
 */
function enqueueAfterAnswer(c: Context<AppEnv>, run: Run, opening?: ChatRunOpening) {
  setImmediate(() => {
    enqueueChatTurn(c, run, opening).catch((error: unknown) => c.var.logger.warn({ err: error, runId: run.id }, 'could not enqueue the run after its 202; the reconciler will'));
  });
}

/**
 * Answers a started run: 202 with where to follow it, or, when the request accepts
 * `text/event-stream`, the run's events on this same response (as the AI SDK's chat transport
 * expects), saving the client a second request and the API the follower's lookups. A retried
 * request (Idempotency-Key) gets the existing run's stream from its start. Nothing is answered
 * before the run is on disk (`durable`).
 */
async function answerStartedRun(c: Context<AppEnv>, { run, created, durable, opening }: StartedRun) {
  // The add first, beside the flush: for a stream, which follows the run from the add on, and with Redis known down (the 503).
  const enqueueDurably = async () => void (await Promise.all([durable, enqueueChatTurn(c, run, opening)]));
  if (c.req.header('accept')?.includes('text/event-stream')) {
    c.header('x-agentq-run-id', run.id);
    const streamed = await (created ? startOrAbandon(c, run, () => streamNewRun(c, run, enqueueDurably)) : durable.then(() => streamRunEvents(c, run.id)));
    // Typed away from the route's output: the RPC types the web client derives describe the JSON answer.
    return streamed as never;
  }
  if (!created) await durable;
  else if (c.var.redis.status === 'ready') {
    await startOrAbandon(c, run, () => durable);
    enqueueAfterAnswer(c, run, opening);
  } else await startOrAbandon(c, run, enqueueDurably);
  if (created) c.var.createdRuns.remember(run);
  return c.json({ runId: run.id, eventsUrl: `/api/runs/${run.id}/events`, status: run.status }, 202);
}

export const sessionRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .post(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Start a chat session',
      description:
        '`temporary: true` starts a temporary chat: in no list, search or export of all chats, its runs neither read nor write memory, sharing, forking, pinning, archiving and filing it answer 409, and it is deleted after 24 hours without use. The session says `temporary`.',
    }),
    validate('json', createSessionInputSchema),
    // A new chat carries no tags yet; the answer has the same shape as the list's chats.
    async (c) => c.json({ ...(await createChatSession(c.get('db'), currentAsker(c), c.req.valid('json'))), tags: [] }, 201),
  )
  .get(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Your chat sessions, most recently active first, a page at a time',
      description: '`limit` (1-200, default 50) per page; pass a page\'s `nextCursor` as `cursor` for the next one (null on the last page). `pinned=true` lists only the pinned chats, `pinned=false` only the others. Archived chats are left out unless `archived=true`, which lists only them. `tag=<name>` lists only the chats that carry that tag (any case). Each chat comes with its `tags`.',
    }),
    validate('query', sessionListQuerySchema),
    async (c) => c.json(await listChatSessions(c.get('db'), currentUser(c).id, c.req.valid('query'))),
  )
  .post(
    '/import',
    describeRoute({
      tags: ['chat'],
      summary: 'Import chats from a file: agentq\'s JSON export, or ChatGPT conversations',
      description: `The body is one chat or a list of up to ${CHATS_PER_IMPORT}: agentq's JSON export (\`format: "agentq.chat.v1"\`) or conversations from ChatGPT's data export (\`conversations.json\`, the branch each one shows). Each becomes a chat of yours with its title and times. Only text, reasoning and ended tool calls are kept; files, images and calls that never ended are left out and counted in \`droppedParts\`. Chats with nothing to import are listed in \`skipped\`. Bodies up to 8 MiB.`,
    }),
    validate('json', chatImportBodySchema),
    async (c) => c.json(await importChats(c.get('db'), currentUser(c).id, c.req.valid('json')), 201),
  )
  .get(
    '/export',
    describeRoute({
      tags: ['chat'],
      summary: 'Download every chat of yours in one file (archived and filed ones too), which Import takes back',
      description:
        'A JSON array of agentq\'s JSON export of each chat (`format: "agentq.chat.v1"`, the branch each shows, with your ratings), oldest chat first, streamed. `?format=zip` answers a ZIP of that array as `chats.json` and, beside it, every file the shown messages carry as `files/<file id>/<name>` (a file part\'s URL `agentq-file:<file id>` names it).',
    }),
    validate('query', exportAllQuerySchema),
    (c) => {
      const userId = currentUser(c).id;
      const day = new Date().toISOString().slice(0, 10);
      c.header('cache-control', 'no-store');
      if (c.req.valid('query').format === 'zip') {
        const archive = chatsArchive(c.get('db'), userId);
        c.header('content-type', 'application/zip');
        c.header('content-disposition', attachmentDisposition(`agentq-chats-${day}.zip`));
        return stream(c, async (out) => {
          for await (const chunk of archive) await out.write(chunk);
        });
      }
      const chats = exportAllChats(c.get('db'), userId);
      c.header('content-type', 'application/json; charset=utf-8');
      c.header('content-disposition', attachmentDisposition(`agentq-chats-${day}.json`));
      return stream(c, async (out) => {
        let first = true;
        await out.write('[');
        for await (const chat of chats) {
          await out.write(`${first ? '\n' : ',\n'}${chat}`);
          first = false;
        }
        await out.write('\n]\n');
      });
    },
  )
  .post(
    '/archive-all',
    describeRoute({ tags: ['chat'], summary: 'Archive every chat of yours that is not archived yet; answers how many' }),
    async (c) => c.json({ archived: await archiveAllChats(c.get('db'), currentUser(c).id) }),
  )
  .delete(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Delete every chat of yours (send ?all=true); a chat whose answer is still running stays. Answers how many went and stayed',
      description: 'With their messages, files, shared links and finished runs. Without `all=true` the request is refused (400), so a mistaken DELETE of the collection deletes nothing.',
    }),
    validate('query', deleteAllQuery),
    async (c) => c.json(await deleteAllChats(c.get('db'), currentUser(c).id)),
  )
  .get(
    '/search',
    describeRoute({
      tags: ['chat'],
      summary: 'Search your sessions by title and message text, best first',
      description: 'English words match stemmed (full-text); every term also matches as a substring, so Chinese or Japanese words are found inside sentences. `tag:name` (`tag:\"to read\"` for a name with spaces) keeps only the chats with that tag; alone, it lists them, most recently active first. Titles and the best message snippet come as segments with the matches marked; each hit has the chat\'s `tags`.',
    }),
    validate('query', searchSessionsQuerySchema),
    async (c) => c.json({ items: await searchChatSessions(c.get('db'), currentUser(c).id, c.req.valid('query')) }),
  )
  .get('/:id', describeRoute({ tags: ['chat'], summary: 'A session with the shown branch of its messages (UI parts, versions), its runs\' outcomes and its active run' }), validate('param', idParam), async (c) =>
    c.json(await sessionDetail(c, c.req.valid('param').id, currentUser(c).id)),
  )
  .get(
    '/:id/export',
    describeRoute({
      tags: ['chat'],
      summary: 'Download the chat as a file',
      description:
        'The branch the chat shows, as `format=markdown` (default: the text, the reasoning, each tool call with its input and outcome, the sources of each answer, your rating of each answer) or `format=json` (the stored UI parts, `sources` on an answer whose tools returned any, and `feedback` on a rated answer; `format: "agentq.chat.v1"`). An answer still streaming is not in it yet.',
    }),
    validate('param', idParam),
    validate('query', chatExportQuerySchema),
    async (c) => {
      const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
      const file = await exportChatFile(c.get('db'), session, c.req.valid('query').format);
      return c.body(file.body, 200, { 'content-type': file.contentType, 'content-disposition': attachmentDisposition(file.filename), 'cache-control': 'no-store' });
    },
  )
  .get('/:id/share', describeRoute({ tags: ['chat'], summary: "The chat's shared link (404 when it has none)" }), validate('param', idParam), async (c) => {
    const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    return c.json(await getChatShare(c.get('db'), session));
  })
  .put(
    '/:id/share',
    describeRoute({
      tags: ['chat'],
      summary: 'Share the chat by link, or update its link to the chat as it is now',
      description:
        'The link (`/shared/{id}`) shows a copy of the branch the chat shows now, to anyone signed in who has it; what follows stays private until the link is updated. Text, reasoning and ended tool calls are copied, as an import keeps them. 201 when the link is made, 200 when updated (same link); 400 for a chat with no messages.',
    }),
    validate('param', idParam),
    async (c) => {
      const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
      const { share, created } = await shareChat(c.get('db'), session);
      await audit(c, { action: created ? 'chat.share' : 'chat.share-update', targetType: 'chat', targetId: session.id, details: { shareId: share.id } });
      return c.json(share, created ? 201 : 200);
    },
  )
  .delete('/:id/share', describeRoute({ tags: ['chat'], summary: "Take the chat's shared link down (404 when it has none)" }), validate('param', idParam), async (c) => {
    const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    if (!(await unshareChat(c.get('db'), session))) throw new NotFoundError('Shared link');
    await audit(c, { action: 'chat.unshare', targetType: 'chat', targetId: session.id });
    return c.body(null, 204);
  })
  .put(
    '/:id/messages/:messageId/feedback',
    describeRoute({ tags: ['chat'], summary: 'Rate an answer: `rating` up or down, an optional `comment`; rating again replaces it (400 for a question)' }),
    validate('param', messageParam),
    validate('json', feedbackInputSchema),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const session = await getChatSessionFor(c.get('db'), id, currentUser(c).id);
      return c.json(await rateAnswer(c.get('db'), session, messageId, c.req.valid('json')));
    },
  )
  .delete('/:id/messages/:messageId/feedback', describeRoute({ tags: ['chat'], summary: "Take an answer's rating back (404 when it has none)" }), validate('param', messageParam), async (c) => {
    const { id, messageId } = c.req.valid('param');
    const session = await getChatSessionFor(c.get('db'), id, currentUser(c).id);
    if (!(await clearAnswerFeedback(c.get('db'), session, messageId))) throw new NotFoundError('Feedback', messageId);
    return c.body(null, 204);
  })
  .patch('/:id', describeRoute({ tags: ['chat'], summary: 'Rename a session (`title`), pin it to the top of the list (`pinned`), or archive it out of the lists (`archived`, which unpins it); none moves it among the recent ones' }), validate('param', idParam), validate('json', updateSessionInputSchema), async (c) => {
    const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    return c.json(await updateChatSession(c.get('db'), session, c.req.valid('json')));
  })
  .put(
    '/:id/tags',
    describeRoute({
      tags: ['chat'],
      summary: "Give the chat these tags (`tags`, at most 10, each 1-32 characters), replacing those it had; answers the chat's tags",
      description: 'A name you already use as a tag in another case is that tag (spelled as you first typed it); a tag no chat carries any more is gone from GET /api/tags. A temporary chat takes no tags (409).',
    }),
    validate('param', idParam),
    validate('json', setChatTagsInputSchema),
    async (c) => {
      const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
      return c.json({ tags: await setChatTags(c.get('db'), session, c.req.valid('json')) });
    },
  )
  .delete('/:id', describeRoute({ tags: ['chat'], summary: 'Delete a session with its messages (409 while a run is going)' }), validate('param', idParam), async (c) => {
    const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    await deleteChatSession(c.get('db'), session);
    return c.body(null, 204);
  })
  .post(
    '/:id/messages/:messageId/select',
    describeRoute({ tags: ['chat'], summary: 'Show this version of a message (‹ 1/2 ›) and the branch below it; answers the session' }),
    validate('param', messageParam),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const user = currentUser(c);
      const session = await getChatSessionFor(c.get('db'), id, user.id);
      await selectMessageVersion(c.get('db'), session, messageId);
      return c.json(await sessionDetail(c, session.id, user.id));
    },
  )
  .post(
    '/:id/messages/:messageId/fork',
    describeRoute({
      tags: ['chat'],
      summary: 'Copy the conversation down to this message into a new chat of yours, to go on from there (201 with the new chat)',
      description: 'The branch that leads to the message (whichever version is shown), with its text, reasoning, ended tool calls and the questions\' files (copied); this chat stays as it is.',
    }),
    validate('param', messageParam),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const session = await getChatSessionFor(c.get('db'), id, currentUser(c).id);
      return c.json(await forkChat(c.get('db'), session, messageId), 201);
    },
  )
  .post(
    '/:id/messages/:messageId/regenerate',
    describeRoute({ tags: ['chat'], summary: 'Answer again (an answer\'s question, or a question without one); earlier answers stay as versions. 202 like a send' }),
    validate('param', messageParam),
    validate('header', idempotencyHeader),
    validate('json', runOptionsSchema),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const asker = currentAsker(c);
      await enforceUsageLimit(c, c.req.valid('header')['idempotency-key']);
      const session = await getChatSessionFor(c.get('db'), id, asker.userId);
      const started = await regenerateAnswer(c.get('db'), { ...asker, session, messageId, input: c.req.valid('json'), idempotencyKey: c.req.valid('header')['idempotency-key'] });
      return answerStartedRun(c, started);
    },
  )
  .post(
    '/:id/messages/:messageId/revise',
    describeRoute({
      tags: ['chat'],
      summary: "Edit an answer: `text` becomes a new version of it (the model's stays reachable), shown at once; the next question reads it. 409 while an answer is being written; answers the session",
    }),
    validate('param', messageParam),
    validate('json', reviseAnswerInputSchema),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const user = currentUser(c);
      const session = await getChatSessionFor(c.get('db'), id, user.id);
      await reviseAnswer(c.get('db'), session, messageId, c.req.valid('json'));
      return c.json(await sessionDetail(c, session.id, user.id));
    },
  )
  .post(
    '/:id/messages/:messageId/edit',
    describeRoute({ tags: ['chat'], summary: 'Send an edited version of your message on a new branch (the old one stays reachable). 202 like a send' }),
    validate('param', messageParam),
    validate('header', idempotencyHeader),
    validate('json', startRunInputSchema),
    async (c) => {
      const { id, messageId } = c.req.valid('param');
      const asker = currentAsker(c);
      await enforceUsageLimit(c, c.req.valid('header')['idempotency-key']);
      const session = await getChatSessionFor(c.get('db'), id, asker.userId);
      const started = await editAndResend(c.get('db'), { ...asker, session, messageId, input: c.req.valid('json'), idempotencyKey: c.req.valid('header')['idempotency-key'] });
      return answerStartedRun(c, started);
    },
  )
  .post(
    '/:id/runs',
    describeRoute({
      tags: ['chat'],
      summary: 'Send a message: stores it, answers 202 and enqueues a chat turn, or streams the run with Accept: text/event-stream',
      description:
        'An Idempotency-Key header makes a retried request return the same run. A session has at most one active run (409 names it). A user whose tokens in the current UTC day or month reached their usage limit gets 429 `usage_limit` (details: `period`, `limit`, `spent`, `resetsAt`; a Retry-After header) and nothing is stored; regenerate, edit and a schedule\'s Run now answer the same. With `Accept: text/event-stream` the answer is the run\'s events (200, as GET /api/runs/{id}/events; the run id in `x-agentq-run-id`) instead of the 202.',
    }),
    validate('param', idParam),
    validate('header', idempotencyHeader),
    validate('json', startRunInputSchema),
    async (c) => {
      const idempotencyKey = c.req.valid('header')['idempotency-key'];
      await enforceUsageLimit(c, idempotencyKey);
      const started = await askInSession(c.get('db'), { ...currentAsker(c), sessionId: c.req.valid('param').id, input: c.req.valid('json'), idempotencyKey });
      return answerStartedRun(c, started);
    },
  );
