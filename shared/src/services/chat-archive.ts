import { and, eq } from 'drizzle-orm';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { Database } from '../db/client';
import { chatFiles } from '../db/schema';
import { everyChat, exportChatWithFiles } from './chat-data';

/**
 * Every chat of the user with the files its questions carried and the pictures its tool calls made,
 * as one ZIP (Account → Data, "Download with files"): `chats.json` is the JSON export of all chats
 * (what Import takes back), and each file a shown message carries is `files/<file id>/<name>`, the id
 * its part's `agentq-file:<id>` URL (or a call's `metadata.image.fileId`) names. Streamed: one chat's messages and one file's bytes in memory at a time.
 */

/** Where a file goes in the archive: its id keeps two files of one name apart. */
export const archivedFilePath = (file: { id: string; name: string }) => `files/${file.id}/${file.name}`;

const encoder = new TextEncoder();

export async function* chatsArchive(db: Database, userId: string, exportedAt = new Date()): AsyncGenerator<Uint8Array> {
  // fflate calls back synchronously as entries are pushed; the chunks wait here until yielded.
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else ready.push(chunk);
  });
  const drain = function* () {
    if (failure) throw failure;
    yield* ready.splice(0);
  };

  const json = new ZipDeflate('chats.json', { level: 6 });
  json.mtime = exportedAt;
  zip.add(json);
  const fileIds: { sessionId: string; id: string }[] = [];
  let first = true;
  json.push(encoder.encode('['));
  for await (const session of everyChat(db, userId)) {
    const { file, fileIds: carried } = await exportChatWithFiles(db, session, 'json', exportedAt);
    json.push(encoder.encode(`${first ? '\n' : ',\n'}${file.body.trimEnd()}`));
    first = false;
    for (const id of carried) fileIds.push({ sessionId: session.id, id });
    yield* drain();
  }
  json.push(encoder.encode('\n]\n'), true);
  yield* drain();

  for (const { sessionId, id } of fileIds) {
    const [file] = await db
      .select({ id: chatFiles.id, name: chatFiles.name, data: chatFiles.data, createdAt: chatFiles.createdAt })
      .from(chatFiles)
      .where(and(eq(chatFiles.id, id), eq(chatFiles.sessionId, sessionId)));
    if (!file) continue;
    // Stored as they are: pictures and PDFs are compressed already.
    const entry = new ZipPassThrough(archivedFilePath(file));
    entry.mtime = file.createdAt;
    zip.add(entry);
    entry.push(new Uint8Array(file.data), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
