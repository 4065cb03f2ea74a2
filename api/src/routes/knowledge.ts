import { enqueue } from '@agentq/shared/queues';
import {
  acceptKnowledgeUpload,
  addKnowledgePages,
  addKnowledgePagesInputSchema,
  markKnowledgePageForRefetch,
  MAX_PAGES_PER_ADD,
  createKnowledgeBase,
  currentEmbeddingModelId,
  createKnowledgeBaseInputSchema,
  deleteKnowledgeBase,
  deleteKnowledgeFile,
  listKnowledgeBases,
  ownedKnowledgeBase,
  readableKnowledgeBase,
  sharingChange,
  type KnowledgeActor,
  type KnowledgeBase,
  listKnowledgeFiles,
  MAX_PDF_BYTES,
  MAX_PDF_PAGES,
  MAX_TEXT_FILE_BYTES,
  MAX_TOP_K,
  reindexKnowledgeFiles,
  searchKnowledge,
  updateKnowledgeBase,
  updateKnowledgeBaseInputSchema,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { Context } from 'hono';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';
import { takeWebPageFetches } from './web-pages';
import { uploadedFile } from './chat-files';

/** Uploads take more than the API's usual body limit (app.ts): a PDF runs to megabytes. */
export const KNOWLEDGE_UPLOAD_PATH = /^\/api\/knowledge\/[^/]+\/files$/;

const idParam = z.object({ id: z.string().min(1).max(100) });
const fileParam = idParam.extend({ fileId: z.string().min(1).max(100) });
export const knowledgeSearchInputSchema = z.object({
  query: z.string().trim().min(1).max(1000),
  topK: z.number().int().min(1).max(MAX_TOP_K).default(5),
});

const tags = ['knowledge'];

function knowledgeActor(c: Context<AppEnv>): KnowledgeActor {
  const user = currentUser(c);
  return { userId: user.id, isAdmin: user.role === 'admin', groupIds: user.groupIds };
}

/** Notes in the audit log an admin sharing a base, changing whom with, or taking it back (a delete included). */
async function auditSharing(c: Context<AppEnv>, previous: KnowledgeBase | null, current: KnowledgeBase | null): Promise<void> {
  const change = sharingChange(previous, current);
  if (!change) return;
  const base = (current ?? previous)!;
  await audit(c, { action: `knowledge.${change}`, targetType: 'knowledge_base', targetId: base.id, details: { name: base.name, ownerId: base.userId, ...(change === 'share' && { groupIds: base.groupIds }) } });
}

/**
 * The signed-in user's knowledge bases (docs/using.md "Knowledge"): any user keeps their own, and reads
 * (opens, test-searches) those an admin shared with them; changing a shared one answers 403, and a base
 * neither theirs nor shared with them 404. Uploaded files are processed on the `knowledge-ingestions` queue.
 */
export const knowledgeRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get(
    '/',
    describeRoute({ tags, summary: 'Your knowledge bases and those shared with you, newest first, with file and chunk counts: `owned` false and `sharedBy` (the owner\'s name) for a shared one' }),
    async (c) => c.json({ items: await listKnowledgeBases(c.get('db'), knowledgeActor(c)) }),
  )
  .post('/', describeRoute({ tags, summary: 'Create a knowledge base: `name` (1–100 characters), optional `description`' }), validate('json', createKnowledgeBaseInputSchema), async (c) =>
    c.json(await createKnowledgeBase(c.get('db'), currentUser(c).id, c.req.valid('json')), 201),
  )
  .get(
    '/:id',
    describeRoute({
      tags,
      summary: 'A knowledge base with its files (status processing, ready or failed with the reason; chunk counts; the model each was embedded with) and `embeddingModel`, the model that embeds now',
    }),
    validate('param', idParam),
    async (c) => {
      const base = await readableKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
      const [files, embeddingModel] = await Promise.all([listKnowledgeFiles(c.get('db'), base.id), currentEmbeddingModelId(c.get('db'))]);
      return c.json({ ...base, embeddingModel, files });
    },
  )
  .patch(
    '/:id',
    describeRoute({
      tags,
      summary: 'Rename a knowledge base or change its description (its owner); admins share it read-only: `shared`, `groupIds` (empty: everyone), on their own base or any shared one, 403 for others; 400 for an unknown group',
    }),
    validate('param', idParam),
    validate('json', updateKnowledgeBaseInputSchema),
    async (c) => {
      const { base, previous } = await updateKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id, c.req.valid('json'));
      await auditSharing(c, previous, base);
      return c.json(base);
    },
  )
  .delete('/:id', describeRoute({ tags, summary: 'Delete one of your knowledge bases with its files and passages; knowledge tools that name it stop finding them' }), validate('param', idParam), async (c) => {
    const deleted = await deleteKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
    await auditSharing(c, deleted, null);
    return c.body(null, 204);
  })
  .post(
    '/:id/files',
    describeRoute({
      tags,
      summary: 'Upload a file to a knowledge base; 201 with the file, status `processing` until it is read, chunked and embedded',
      description: `multipart/form-data with one \`file\` field. The type is judged from the bytes, not the name: a PDF by its header (up to ${MAX_PDF_BYTES / 1024 / 1024} MiB and ${MAX_PDF_PAGES} pages; its text is read), else UTF-8 text — plain, Markdown, CSV, code (up to ${MAX_TEXT_FILE_BYTES / 1024} KiB). Anything else is a 415, too big a 413. Poll GET /api/knowledge/{id} until the file is \`ready\` or \`failed\` (with \`error\`).`,
      requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } } } },
    }),
    validate('param', idParam),
    async (c) => {
      const base = await ownedKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
      const file = await uploadedFile(() => c.req.parseBody());
      const outcome = await acceptKnowledgeUpload(c.get('db'), base.id, { name: file.name, data: new Uint8Array(await file.arrayBuffer()) });
      if (!outcome.ok) throw new ApiError(outcome.status, outcome.status === 413 ? 'payload_too_large' : 'unsupported_media_type', outcome.message);
      try {
        await enqueue(c.get('queues'), 'knowledgeIngestions', 'knowledge-ingestion', { fileId: outcome.file.id }, { jobId: outcome.file.id });
      } catch (error) {
        // Nothing would ever process it: take it back rather than leave it `processing` for good.
        await deleteKnowledgeFile(c.get('db'), base.id, outcome.file.id).catch(() => {});
        throw error;
      }
      return c.json(outcome.file, 201);
    },
  )
  .post(
    '/:id/pages',
    describeRoute({
      tags,
      summary: `Add web pages to a knowledge base: \`urls\` (1–${MAX_PAGES_PER_ADD} http(s) addresses); 201 with one file per page, status \`processing\``,
      description:
        'The worker fetches each page the way the `fetch` tool does (public addresses only, redirects checked, up to 1 MiB in 15 s; HTML or text only), stores its text as Markdown named by the page title with `sourceUrl` kept, then chunks and embeds it like an upload. A page that cannot be fetched shows `failed` with the reason (refused address, HTTP status, too big, not HTML or text). Poll GET /api/knowledge/{id}.',
    }),
    validate('param', idParam),
    validate('json', addKnowledgePagesInputSchema),
    async (c) => {
      const base = await ownedKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
      await takeWebPageFetches(c, c.req.valid('json').urls.length);
      const files = await addKnowledgePages(c.get('db'), base.id, c.req.valid('json'));
      try {
        await c.get('queues').knowledgeIngestions.addBulk(files.map((file) => ({ name: 'knowledge-ingestion', data: { fileId: file.id }, opts: { jobId: file.id } })));
      } catch (error) {
        // Nothing would ever fetch them: take them back rather than leave them `processing` for good.
        await Promise.all(files.map((file) => deleteKnowledgeFile(c.get('db'), base.id, file.id).catch(() => {})));
        throw error;
      }
      return c.json({ items: files }, 201);
    },
  )
  .post(
    '/:id/files/:fileId/refetch',
    describeRoute({ tags, summary: "Fetch a web page's file again and process it (202); 400 for an uploaded file. Its old passages stay searchable until the new ones replace them" }),
    validate('param', fileParam),
    async (c) => {
      const { id, fileId } = c.req.valid('param');
      const base = await ownedKnowledgeBase(c.get('db'), knowledgeActor(c), id);
      await takeWebPageFetches(c, 1);
      const marked = await markKnowledgePageForRefetch(c.get('db'), base.id, fileId);
      try {
        await enqueue(c.get('queues'), 'knowledgeIngestions', 'knowledge-ingestion', { fileId, refetch: true }, { jobId: `${fileId}-refetch-${Date.now().toString(36)}` });
      } catch (error) {
        await marked.restore().catch(() => {});
        throw error;
      }
      return c.json({ queued: 1 }, 202);
    },
  )
  .delete('/:id/files/:fileId', describeRoute({ tags, summary: 'Remove a file and its passages from a knowledge base' }), validate('param', fileParam), async (c) => {
    const { id, fileId } = c.req.valid('param');
    const base = await ownedKnowledgeBase(c.get('db'), knowledgeActor(c), id);
    await deleteKnowledgeFile(c.get('db'), base.id, fileId);
    return c.body(null, 204);
  })
  .post(
    '/:id/reindex',
    describeRoute({
      tags,
      summary: 'Process again the files the current embedding model did not embed, and the failed ones; 202 with how many were queued',
      description: 'For files added before a model was flagged "Embeds text", or embedded by another model since replaced: until then vector search skips their passages. Files show `processing` until done; their old passages stay searchable meanwhile.',
    }),
    validate('param', idParam),
    async (c) => {
      const base = await ownedKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
      return c.json(await reindexKnowledgeFiles(c.get('db'), { baseId: base.id }, enqueueIngestions(c)), 202);
    },
  )
  .post(
    '/:id/search',
    describeRoute({
      tags,
      summary: 'Try retrieval: the passages of this base that best match `query`, best first',
      description: `What a \`knowledge\` tool attached to this base would return: \`topK\` (1–${MAX_TOP_K}, default 5) passages, each with its file and position. \`mode\` is \`hybrid\` (vector similarity fused with full-text rank) when a model is flagged "Embeds text", else \`full-text\`.`,
    }),
    validate('param', idParam),
    validate('json', knowledgeSearchInputSchema),
    async (c) => {
      const base = await readableKnowledgeBase(c.get('db'), knowledgeActor(c), c.req.valid('param').id);
      const { query, topK } = c.req.valid('json');
      return c.json(await searchKnowledge(c.get('db'), [base.id], query, { topK, appSecret: c.get('config').appSecret, signal: c.req.raw.signal }));
    },
  );

/** Adds one ingestion job per file in one round trip (addBulk is a MULTI: all or none). A file's
 * first job is named by its id; these get a suffix, since the first may still be kept for audit. */
export function enqueueIngestions(c: Context<AppEnv>) {
  return async (fileIds: string[]): Promise<void> => {
    const stamp = Date.now().toString(36);
    await c.get('queues').knowledgeIngestions.addBulk(fileIds.map((fileId) => ({ name: 'knowledge-ingestion', data: { fileId }, opts: { jobId: `${fileId}-reindex-${stamp}` } })));
  };
}
