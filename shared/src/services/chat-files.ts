import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { chatFiles, messages } from '../db/schema';
import { newId } from '../ids';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';

/**
 * Files attached to chat messages. What is kept is decided by the bytes, not by the name or the type
 * a client declares: an image by its signature (PNG, JPEG, GIF, WebP: what vision models take), else
 * text when it is valid UTF-8 without NUL bytes. A message carries a file as a UI file part whose
 * URL names it (`agentq-file:<id>`); the worker reads the bytes when it calls the model.
 */

export type ChatFile = Omit<typeof chatFiles.$inferSelect, 'data'>;
export type ChatFileWithData = typeof chatFiles.$inferSelect;

/** What the API answers for a file: no bytes, no owner. */
export type ChatFileView = { id: string; name: string; mediaType: string; size: number; createdAt: string };

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** About 130,000 tokens of English: more would not fit most models' context beside the chat. */
export const MAX_TEXT_FILE_BYTES = 512 * 1024;
/** Files one message may carry. */
export const MAX_ATTACHMENTS = 10;
/** The upload route's body limit: the largest file plus the multipart envelope. */
export const CHAT_FILE_UPLOAD_LIMIT_BYTES = MAX_IMAGE_BYTES + 64 * 1024;

const FILE_URL_PREFIX = 'agentq-file:';

export const chatFileUrl = (id: string) => `${FILE_URL_PREFIX}${id}`;

/** The file id a part's URL names, or undefined for any other URL. */
export function chatFileIdOf(url: unknown): string | undefined {
  return typeof url === 'string' && url.startsWith(FILE_URL_PREFIX) ? url.slice(FILE_URL_PREFIX.length) : undefined;
}

/** A UI message file part that names a stored file. */
export type ChatFilePart = { type: 'file'; mediaType: string; filename: string; url: string };

const IMAGE_SIGNATURES: { mediaType: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { mediaType: 'image/png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mediaType: 'image/jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { mediaType: 'image/gif', matches: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) },
  { mediaType: 'image/webp', matches: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

/** text/* types a model provider passes on as text, by extension; every other text file is text/plain. */
const TEXT_TYPES: Record<string, string> = { md: 'text/markdown', markdown: 'text/markdown', csv: 'text/csv', tsv: 'text/tab-separated-values', html: 'text/html', htm: 'text/html' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The name a file is kept under: its last path segment, without control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim().slice(0, 200);
  return cleaned || 'file';
}

export type UploadVerdict = { ok: true; mediaType: string } | { ok: false; status: 413 | 415; message: string };

/** Whether these bytes may be attached, and as what: an image by its signature, else text. */
export function judgeUpload(bytes: Uint8Array, name: string): UploadVerdict {
  if (bytes.length === 0) return { ok: false, status: 415, message: 'The file is empty' };
  const image = IMAGE_SIGNATURES.find((signature) => signature.matches(bytes));
  if (image) {
    if (bytes.length > MAX_IMAGE_BYTES) return { ok: false, status: 413, message: `Images can be up to ${MAX_IMAGE_BYTES / 1024 / 1024} MiB` };
    return { ok: true, mediaType: image.mediaType };
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return { ok: false, status: 415, message: 'PDF files cannot be attached; paste their text instead' };
  if (!isText(bytes)) return { ok: false, status: 415, message: 'Only images (PNG, JPEG, GIF, WebP) and UTF-8 text files can be attached' };
  if (bytes.length > MAX_TEXT_FILE_BYTES) return { ok: false, status: 413, message: `Text files can be up to ${MAX_TEXT_FILE_BYTES / 1024} KiB` };
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  return { ok: true, mediaType: TEXT_TYPES[extension] ?? 'text/plain' };
}

export function toChatFileView(file: ChatFile): ChatFileView {
  return { id: file.id, name: file.name, mediaType: file.mediaType, size: file.size, createdAt: file.createdAt.toISOString() };
}

const metadata = {
  id: chatFiles.id,
  sessionId: chatFiles.sessionId,
  userId: chatFiles.userId,
  name: chatFiles.name,
  mediaType: chatFiles.mediaType,
  size: chatFiles.size,
  createdAt: chatFiles.createdAt,
};

/** Stores a judged upload (judgeUpload) in session `sessionId`, which the caller has checked is the user's. */
export async function storeChatFile(db: Database, file: { sessionId: string; userId: string; name: string; mediaType: string; data: Uint8Array }): Promise<ChatFile> {
  const data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
  const [row] = await db
    .insert(chatFiles)
    .values({ id: newId('file'), sessionId: file.sessionId, userId: file.userId, name: cleanFileName(file.name), mediaType: file.mediaType, size: data.length, data })
    .returning(metadata);
  return row!;
}

/** A file of session `sessionId` with its bytes; NotFoundError for any other. */
export async function getChatFile(db: Database, sessionId: string, fileId: string): Promise<ChatFileWithData> {
  const [row] = await db.select().from(chatFiles).where(and(eq(chatFiles.id, fileId), eq(chatFiles.sessionId, sessionId)));
  if (!row) throw new NotFoundError('File', fileId);
  return row;
}

/** Removes an upload no message carries (one taken off before sending); a sent file stays with its message (409). */
export async function deleteChatFile(db: Database, sessionId: string, fileId: string): Promise<void> {
  const [file] = await db.select({ id: chatFiles.id }).from(chatFiles).where(and(eq(chatFiles.id, fileId), eq(chatFiles.sessionId, sessionId)));
  if (!file) throw new NotFoundError('File', fileId);
  const carried = sql`${messages.parts} @> ${JSON.stringify([{ url: chatFileUrl(fileId) }])}::jsonb`;
  const [used] = await db.select({ id: messages.id }).from(messages).where(and(eq(messages.sessionId, sessionId), carried)).limit(1);
  if (used) throw new ConflictError('This file was sent with a message; it goes when the chat is deleted', { messageId: used.id });
  await db.delete(chatFiles).where(eq(chatFiles.id, fileId));
}

export const attachmentIdsSchema = z.array(z.string().min(1).max(100)).max(MAX_ATTACHMENTS, `Attach at most ${MAX_ATTACHMENTS} files to a message`);

/**
 * The file parts of a message carrying files `ids` of session `sessionId`, in the order given; a
 * 400 naming each id that is not a file of this session (another session's, another user's or none).
 */
export async function attachmentParts(db: Database, sessionId: string, ids: readonly string[]): Promise<ChatFilePart[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await db.select(metadata).from(chatFiles).where(and(eq(chatFiles.sessionId, sessionId), inArray(chatFiles.id, unique)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = unique.flatMap((id) => (byId.has(id) ? [] : [{ path: ['attachments', ids.indexOf(id)], message: `No file ${id} in this chat` }]));
  if (missing.length > 0) throw new InvalidInputError('An attached file is not in this chat; upload it again', missing);
  return unique.map((id) => {
    const file = byId.get(id)!;
    return { type: 'file', mediaType: file.mediaType, filename: file.name, url: chatFileUrl(file.id) };
  });
}

/** The bytes of files `ids` of session `sessionId`, by id (what the model call downloads). */
export async function readChatFiles(db: Database, sessionId: string, ids: readonly string[]): Promise<Map<string, { mediaType: string; data: Uint8Array }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: chatFiles.id, mediaType: chatFiles.mediaType, data: chatFiles.data })
    .from(chatFiles)
    .where(and(eq(chatFiles.sessionId, sessionId), inArray(chatFiles.id, [...new Set(ids)])));
  return new Map(rows.map((row) => [row.id, { mediaType: row.mediaType, data: new Uint8Array(row.data) }]));
}
