import {
  createDocument,
  createDocumentInputSchema,
  deleteDocument,
  getDocument,
  listDocumentRevisions,
  listDocuments,
  listDocumentsQuerySchema,
  restoreDocumentRevision,
  searchDocuments,
  toDocumentView,
  updateDocument,
  updateDocumentInputSchema,
} from '@agentq/shared/services';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const listQuery = listDocumentsQuerySchema.extend({
  /** The `nextCursor` of the previous page; wins over `offset`. */
  cursor: z.string().regex(/^\d{1,7}$/, 'Use the nextCursor of the previous page').optional(),
});
const restoreBody = z.object({
  version: z.number().int().min(1).max(1_000_000),
  expectedVersion: z.number().int().min(1).max(1_000_000).optional(),
});

/** The signed-in user as the documents service's actor: the API never sets a session. */
const actorOf = (c: Context<AppEnv>) => ({ userId: currentUser(c).id });

/**
 * `/api/agent-documents` (seed 003 ch.5): the signed-in user's own memories and documents.
 * Another user's id answers 404 exactly like a missing one; isolation lives in the service.
 */
export const documentRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get(
    '/',
    describeRoute({
      tags: ['documents'],
      summary: 'Your documents without content; filter by type, full-text search with q (then ranked, with snippets); paginated',
      description: 'Answers `{ items, total, nextCursor }`. Without `q`, newest update first; with `q`, most relevant first and each item has `rank` and `snippet` (matches in **bold**).',
    }),
    validate('query', listQuery),
    async (c) => {
      const { cursor, ...query } = c.req.valid('query');
      const options = { ...query, offset: cursor === undefined ? query.offset : Number(cursor) };
      const page = options.q ? await searchDocuments(c.get('db'), actorOf(c), { ...options, q: options.q }) : await listDocuments(c.get('db'), actorOf(c), options);
      return c.json({ items: page.items, total: page.total, nextCursor: page.nextOffset === null ? null : String(page.nextOffset) });
    },
  )
  .post(
    '/',
    describeRoute({ tags: ['documents'], summary: 'Create a document (type defaults to document); the summary defaults to the start of the content' }),
    validate('json', createDocumentInputSchema),
    async (c) => c.json(toDocumentView(await createDocument(c.get('db'), actorOf(c), c.req.valid('json'))), 201),
  )
  .get('/:id', describeRoute({ tags: ['documents'], summary: 'One of your documents with its content' }), validate('param', idParam), async (c) =>
    c.json(toDocumentView(await getDocument(c.get('db'), actorOf(c), c.req.valid('param').id))),
  )
  .put(
    '/:id',
    describeRoute({
      tags: ['documents'],
      summary: 'Update title, content, summary or tags; a new version',
      description: 'With `expectedVersion`, answers 409 (details: currentVersion) if the document changed since that version.',
    }),
    validate('param', idParam),
    validate('json', updateDocumentInputSchema),
    async (c) => c.json(toDocumentView(await updateDocument(c.get('db'), actorOf(c), c.req.valid('param').id, c.req.valid('json')))),
  )
  .delete('/:id', describeRoute({ tags: ['documents'], summary: 'Delete a document and its history' }), validate('param', idParam), async (c) => {
    await deleteDocument(c.get('db'), actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  })
  .get(
    '/:id/revisions',
    describeRoute({ tags: ['documents'], summary: 'Every version of a document, newest first, with who (user or run) made it and when' }),
    validate('param', idParam),
    async (c) => c.json({ items: await listDocumentRevisions(c.get('db'), actorOf(c), c.req.valid('param').id) }),
  )
  .post(
    '/:id/restore',
    describeRoute({ tags: ['documents'], summary: 'Bring back an earlier version as a new version; 404 for a version that never existed' }),
    validate('param', idParam),
    validate('json', restoreBody),
    async (c) => {
      const { version, expectedVersion } = c.req.valid('json');
      return c.json(toDocumentView(await restoreDocumentRevision(c.get('db'), actorOf(c), c.req.valid('param').id, version, { expectedVersion })));
    },
  );
