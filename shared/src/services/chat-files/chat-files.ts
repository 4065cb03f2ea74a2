import { and, eq, inArray, isNull, lt, not, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/client';
import { chatFiles, messages } from '../../db/schema';
import { newId } from '../../ids';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import { chatFileUrl, cleanFileName, judgeUpload, MAX_ATTACHMENTS, MAX_TEXT_FILE_BYTES, PDF_MEDIA_TYPE } from './judge-upload';
import { extractPdfText, MAX_PDF_PAGES, type PdfText } from './pdf-text';

/**
 * Files attached to chat messages, kept per session. A message carries a file as a UI file part
 * whose URL names it (`agentq-file:<id>`); the worker reads the bytes (or a PDF's text) when it
 * calls the model, so messages and checkpoints never hold them.
 */

export type ChatFile = Omit<typeof chatFiles.$inferSelect, 'data' | 'text'>;
export type ChatFileWithData = typeof chatFiles.$inferSelect;

/** What the API answers for a file: no bytes, no owner. */
export type ChatFileView = { id: string; name: string; mediaType: string; size: number; createdAt: string };

/** A UI message file part that names a stored file. */
export type ChatFilePart = { type: 'file'; mediaType: string; filename: string; url: string };

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
  madeByCall: chatFiles.madeByCall,
  createdAt: chatFiles.createdAt,
};

/** A PDF's text past this is left out, with a line saying so (the model's context is finite). */
export const MAX_PDF_TEXT_CHARS = MAX_TEXT_FILE_BYTES;

const PDF_REFUSALS: Record<Exclude<PdfText, { ok: true }>['reason'], string> = {
  encrypted: 'The PDF is password-protected; remove the password and attach it again',
  invalid: 'The PDF could not be read; it may be damaged',
  'no-text': 'The PDF has no text to read (a scan?); attach its pages as images instead',
  timeout: 'Reading the PDF took too long; attach its text instead',
  'too-many-pages': `PDF files can have up to ${MAX_PDF_PAGES} pages`,
};

/** A PDF's text as the model reads it, cut to MAX_PDF_TEXT_CHARS. */
function pdfTextForModel(pdf: Extract<PdfText, { ok: true }>): string {
  if (pdf.text.length <= MAX_PDF_TEXT_CHARS) return pdf.text;
  return `${pdf.text.slice(0, MAX_PDF_TEXT_CHARS)}\n\n[The rest of this ${pdf.pages}-page PDF's text was left out: it is too long.]`;
}

export type UploadOutcome = { ok: true; file: ChatFile } | { ok: false; status: 413 | 415; message: string };

/**
 * Keeps an upload in session `sessionId` (which the caller has checked is the user's) if its bytes
 * are something we attach (judgeUpload); a PDF's text is read now, so a PDF without readable text is
 * refused at once rather than when the model is called.
 */
export async function acceptUpload(db: Database, upload: { sessionId: string; userId: string; name: string; data: Uint8Array }): Promise<UploadOutcome> {
  const verdict = judgeUpload(upload.data, upload.name);
  if (!verdict.ok) return verdict;
  let text: string | null = null;
  if (verdict.mediaType === PDF_MEDIA_TYPE) {
    const pdf = await extractPdfText(upload.data);
    if (!pdf.ok) return { ok: false, status: pdf.reason === 'too-many-pages' ? 413 : 415, message: PDF_REFUSALS[pdf.reason] };
    text = pdfTextForModel(pdf);
  }
  const data = Buffer.from(upload.data.buffer, upload.data.byteOffset, upload.data.byteLength);
  const [row] = await db
    .insert(chatFiles)
    .values({ id: newId('file'), sessionId: upload.sessionId, userId: upload.userId, name: cleanFileName(upload.name), mediaType: verdict.mediaType, size: data.length, data, text })
    .returning(metadata);
  return { ok: true, file: row! };
}

/**
 * Keeps a file a tool call made in the run's session (a generated picture), named by the call
 * (`madeByCall`, `<runId>:<toolCallId>`) so a call run again finds it (findFileMadeByCall) and the
 * sweep of unsent uploads leaves it. The caller has judged the bytes.
 */
export async function keepFileMadeByCall(db: Database, file: { sessionId: string; userId: string; madeByCall: string; name: string; mediaType: string; data: Uint8Array }): Promise<ChatFile> {
  const data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
  const [row] = await db
    .insert(chatFiles)
    .values({ id: newId('file'), sessionId: file.sessionId, userId: file.userId, madeByCall: file.madeByCall, name: cleanFileName(file.name), mediaType: file.mediaType, size: data.length, data })
    .returning(metadata);
  return row!;
}

/** The file call `madeByCall` already kept in session `sessionId`, if any. */
export async function findFileMadeByCall(db: Database, sessionId: string, madeByCall: string): Promise<ChatFile | undefined> {
  const [row] = await db.select(metadata).from(chatFiles).where(and(eq(chatFiles.sessionId, sessionId), eq(chatFiles.madeByCall, madeByCall))).limit(1);
  return row;
}

/** A file of session `sessionId` with its bytes; NotFoundError for any other. */
export async function getChatFile(db: Database, sessionId: string, fileId: string): Promise<ChatFileWithData> {
  const [row] = await db.select().from(chatFiles).where(and(eq(chatFiles.id, fileId), eq(chatFiles.sessionId, sessionId)));
  if (!row) throw new NotFoundError('File', fileId);
  return row;
}

/** Removes an upload no message carries (one taken off before sending); a sent file stays with its message (409). */
export async function deleteChatFile(db: Database, sessionId: string, fileId: string): Promise<void> {
  const [file] = await db.select({ id: chatFiles.id, madeByCall: chatFiles.madeByCall }).from(chatFiles).where(and(eq(chatFiles.id, fileId), eq(chatFiles.sessionId, sessionId)));
  if (!file) throw new NotFoundError('File', fileId);
  if (file.madeByCall) throw new ConflictError('A tool call made this file for its answer; it goes when the chat is deleted');
  const carried = sql`${messages.parts} @> ${JSON.stringify([{ url: chatFileUrl(fileId) }])}::jsonb`;
  const [used] = await db.select({ id: messages.id }).from(messages).where(and(eq(messages.sessionId, sessionId), carried)).limit(1);
  if (used) throw new ConflictError('This file was sent with a message; it goes when the chat is deleted', { messageId: used.id });
  await db.delete(chatFiles).where(eq(chatFiles.id, fileId));
}

/** An upload no message carried after this long was left behind (a send given up on): it goes. */
export const UNSENT_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes uploads older than `olderThanMs` that no message of their chat carries (the rule
 * deleteChatFile applies), at most `limit` a call; files a tool call made are not uploads. A file a message names is never
 * touched: it goes with its chat. @returns how many went.
 */
export async function deleteUnsentUploads(db: Database, options: { olderThanMs?: number; limit?: number } = {}): Promise<number> {
  const { olderThanMs = UNSENT_UPLOAD_TTL_MS, limit = 500 } = options;
  const carried = sql`exists (select 1 from ${messages} where ${messages.sessionId} = ${chatFiles.sessionId} and ${messages.parts} @> jsonb_build_array(jsonb_build_object('url', ${chatFileUrl('')} || ${chatFiles.id})))`;
  const isStale = and(isNull(chatFiles.madeByCall), lt(chatFiles.createdAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`), not(carried));
  const stale = db.select({ id: chatFiles.id }).from(chatFiles).where(isStale).limit(limit);
  // The test again on the deleted rows themselves, not only in the subquery: a row a send renewed
  // meanwhile (attachmentParts) is read again at its new version, fails it and stays.
  const deleted = await db.delete(chatFiles).where(and(inArray(chatFiles.id, stale), isStale)).returning({ id: chatFiles.id });
  return deleted.length;
}

export const attachmentIdsSchema = z.array(z.string().min(1).max(100)).max(MAX_ATTACHMENTS, `Attach at most ${MAX_ATTACHMENTS} files to a message`);

/**
 * The file parts of a message carrying files `ids` of session `sessionId`, in the order given; a
 * 400 naming each id that is not a file of this session (another session's, another user's or none).
 */
export async function attachmentParts(db: Database, sessionId: string, ids: readonly string[]): Promise<ChatFilePart[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  // Renewed, not only read (its time becomes the send's): an upload nearly a day old, sent just as
  // the sweep (deleteUnsentUploads) runs, is either kept (renewed first) or refused here (deleted
  // first), never named by a question while missing.
  const rows = await db.update(chatFiles).set({ createdAt: sql`now()` }).where(and(eq(chatFiles.sessionId, sessionId), inArray(chatFiles.id, unique))).returning(metadata);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = unique.flatMap((id) => (byId.has(id) ? [] : [{ path: ['attachments', ids.indexOf(id)], message: `No file ${id} in this chat` }]));
  if (missing.length > 0) throw new InvalidInputError('An attached file is not in this chat; upload it again', missing);
  return unique.map((id) => {
    const file = byId.get(id)!;
    return { type: 'file', mediaType: file.mediaType, filename: file.name, url: chatFileUrl(file.id) };
  });
}

/**
 * What the model is given for files `ids` of session `sessionId`, by id: an image's or a text
 * file's bytes as they are, a PDF's text (as UTF-8 text/plain).
 */
export async function readChatFilesForModel(db: Database, sessionId: string, ids: readonly string[]): Promise<Map<string, { mediaType: string; data: Uint8Array }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    // A PDF's bytes stay in the database: the model reads its text.
    .select({ id: chatFiles.id, mediaType: chatFiles.mediaType, data: sql<Uint8Array | null>`case when ${chatFiles.text} is null then ${chatFiles.data} end`, text: chatFiles.text })
    .from(chatFiles)
    .where(and(eq(chatFiles.sessionId, sessionId), inArray(chatFiles.id, [...new Set(ids)])));
  const encoder = new TextEncoder();
  return new Map(rows.map((row) => [row.id, row.text === null ? { mediaType: row.mediaType, data: new Uint8Array(row.data!) } : { mediaType: 'text/plain', data: encoder.encode(row.text) }]));
}

/** One file to copy into another chat: the new chat's session and the copy's id. */
/** A file to copy; `madeByCall` names the copied tool call that made it (a generated picture), which no message part carries. */
export type ChatFileCopy = { fromId: string; toId: string; sessionId: string; madeByCall?: string };

/**
 * Copies files of session `fromSessionId` into other sessions of user `userId` (a shared chat's
 * copy), bytes and read text alike, inside the database. Every file must still be there, or the
 * copy fails (ConflictError) rather than keep a question naming a file it lacks.
 */
export async function copyChatFiles(db: Database, options: { fromSessionId: string; userId: string; copies: readonly ChatFileCopy[] }): Promise<void> {
  const { fromSessionId, userId, copies } = options;
  if (copies.length === 0) return;
  // One statement: each copy's id and session picked by the source's id.
  const mapped = (pick: (copy: ChatFileCopy) => string | null) => sql`case ${chatFiles.id} ${sql.join(copies.map((copy) => sql`when ${copy.fromId} then ${pick(copy)}::text`), sql` `)} end`;
  const copied = await db
    .insert(chatFiles)
    .select(
      db
        .select({
          id: mapped((copy) => copy.toId).as('id'),
          sessionId: mapped((copy) => copy.sessionId).as('session_id'),
          userId: sql`${userId}`.as('user_id'),
          name: chatFiles.name,
          mediaType: chatFiles.mediaType,
          size: chatFiles.size,
          data: chatFiles.data,
          text: chatFiles.text,
          // The copy is the new chat's own: a message of it carries it, or its copied call made it.
          madeByCall: mapped((copy) => copy.madeByCall ?? null).as('made_by_call'),
          createdAt: chatFiles.createdAt,
        })
        .from(chatFiles)
        .where(and(eq(chatFiles.sessionId, fromSessionId), inArray(chatFiles.id, copies.map((copy) => copy.fromId)))),
    )
    .returning({ id: chatFiles.id });
  if (copied.length !== copies.length) throw new ConflictError('A file of the chat is gone; it could not be copied');
}

/** A file's media type as the model call must declare it: a PDF goes as its text. */
export const modelMediaType = (mediaType: string) => (mediaType === PDF_MEDIA_TYPE ? 'text/plain' : mediaType);

/** A picture a tool call's output shows (`metadata.image`, as the image-generation tool writes it): a file of session `sessionId`. */
export type CallPicture = { sessionId: unknown; fileId: string } & Record<string, unknown>;

/** The picture a message part's tool output shows, if it names one; no message part carries that file. */
export function pictureOfCall(part: unknown): CallPicture | undefined {
  const image = (part as { output?: { metadata?: { image?: unknown } } } | null)?.output?.metadata?.image;
  if (!image || typeof image !== 'object' || typeof (image as { fileId?: unknown }).fileId !== 'string' || !('sessionId' in image)) return undefined;
  return image as CallPicture;
}
