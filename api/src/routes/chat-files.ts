import {
  acceptUpload,
  attachmentDisposition,
  deleteChatFile,
  type ChatFileWithData,
  getChatFile,
  getChatSessionFor,
  MAX_IMAGE_BYTES,
  MAX_PDF_BYTES,
  MAX_PDF_PAGES,
  MAX_TEXT_FILE_BYTES,
  PDF_MEDIA_TYPE,
  toChatFileView,
} from '@agentq/shared/services';
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

/** Uploads take more than the API's usual body limit (app.ts): an image runs to megabytes. */
export const CHAT_FILE_UPLOAD_PATH = /^\/api\/sessions\/[^/]+\/files$/;

const sessionParam = z.object({ id: z.string().min(1).max(100) });
const fileParam = z.object({ id: z.string().min(1).max(100), fileId: z.string().min(1).max(100) });

/** Reads the multipart body's one `file` field; anything else is the client's mistake (400), never a 500. */
export async function uploadedFile(body: () => Promise<Record<string, unknown>>): Promise<File> {
  let form: Record<string, unknown>;
  try {
    form = await body();
  } catch {
    throw new ApiError(400, 'bad_request', 'Malformed multipart/form-data body');
  }
  const file = form.file;
  if (!(file instanceof File)) throw new ApiError(400, 'bad_request', 'Send the file as the `file` field of a multipart/form-data body');
  return file;
}

/** A stored file as the browser gets it: an image inline, any other file as a download. */
export function chatFileResponse(c: Context, file: ChatFileWithData): Response {
  const image = file.mediaType.startsWith('image/');
  return c.body(new Uint8Array(file.data), 200, {
    // Text goes out as plain text and a download whatever its kind: an uploaded .html never runs as a page of ours; a PDF is a download too.
    'content-type': image || file.mediaType === PDF_MEDIA_TYPE ? file.mediaType : 'text/plain; charset=utf-8',
    'content-disposition': attachmentDisposition(file.name, image ? 'inline' : 'attachment'),
    // A file never changes under its id.
    'cache-control': 'private, max-age=31536000, immutable',
  });
}

/**
 * Files attached to a session's messages (mounted at /api/sessions/:id/files): upload before
 * sending, then name them in the message's `attachments`. Only the session's owner reaches them.
 */
export const chatFileRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .post(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Upload a file to attach to a message: an image (PNG, JPEG, GIF, WebP), a PDF or a UTF-8 text file; 201 with its id',
      description: `multipart/form-data with one \`file\` field. The type is judged from the bytes, not the name: an image by its signature (up to ${MAX_IMAGE_BYTES / 1024 / 1024} MiB), a PDF by its header (up to ${MAX_PDF_BYTES / 1024 / 1024} MiB and ${MAX_PDF_PAGES} pages; the model reads its text, so one without text, damaged or password-protected is refused), else text if it is valid UTF-8 (up to ${MAX_TEXT_FILE_BYTES / 1024} KiB). Anything else is a 415, too big a 413. Send its id in \`attachments\` of POST /api/sessions/{id}/runs.`,
      requestBody: {
        content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } } },
      },
    }),
    validate('param', sessionParam),
    async (c) => {
      const user = currentUser(c);
      const session = await getChatSessionFor(c.get('db'), c.req.valid('param').id, user.id);
      const file = await uploadedFile(() => c.req.parseBody());
      const outcome = await acceptUpload(c.get('db'), { sessionId: session.id, userId: user.id, name: file.name, data: new Uint8Array(await file.arrayBuffer()) });
      if (!outcome.ok) throw new ApiError(outcome.status, outcome.status === 413 ? 'payload_too_large' : 'unsupported_media_type', outcome.message);
      return c.json(toChatFileView(outcome.file), 201);
    },
  )
  .get('/:fileId', describeRoute({ tags: ['chat'], summary: 'A file attached in the chat: an image inline, a PDF or text file as a download' }), validate('param', fileParam), async (c) => {
    const { id, fileId } = c.req.valid('param');
    const session = await getChatSessionFor(c.get('db'), id, currentUser(c).id);
    return chatFileResponse(c, await getChatFile(c.get('db'), session.id, fileId));
  })
  .delete('/:fileId', describeRoute({ tags: ['chat'], summary: 'Remove an upload no message carries (409 once it was sent, or for a picture a tool call made)' }), validate('param', fileParam), async (c) => {
    const { id, fileId } = c.req.valid('param');
    const session = await getChatSessionFor(c.get('db'), id, currentUser(c).id);
    await deleteChatFile(c.get('db'), session.id, fileId);
    return c.body(null, 204);
  });
