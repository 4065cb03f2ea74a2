/**
 * Importing chats from a file (agentq's JSON export, ChatGPT's conversations.json): the page reads
 * the file and sends its chats in requests the API takes (at most 100 chats and a few MiB each), one
 * after another, so an export of thousands of chats imports with progress and one bad part does not
 * hold back the rest. The API checks every chat; this only splits the file.
 */
import { apiFetch } from '../api.ts';
import type { RouteOutput } from '../api-routes.ts';

/** `POST /api/sessions/import` → 201. */
export type ChatImportAnswer = RouteOutput<'/sessions/import', '$post'>;

/** What one request carries at most: the API's 100 chats, and bytes well under its 8 MiB. */
export const IMPORT_BATCH_LIMITS = { chats: 100, bytes: 6 * 1024 * 1024 };

/** A request's worth of chats: their JSON texts and where they start in the file (0-based). */
export type ImportBatch = { start: number; texts: string[] };

const encoder = new TextEncoder();

/** The file's chats in order, as few requests as the limits allow; a chat over the byte limit goes alone (the API judges it). */
export function importBatches(chats: readonly unknown[], limits = IMPORT_BATCH_LIMITS): ImportBatch[] {
  const batches: ImportBatch[] = [];
  let current: ImportBatch | undefined;
  let bytes = 0;
  chats.forEach((chat, index) => {
    const text = JSON.stringify(chat) ?? 'null';
    const size = encoder.encode(text).length + 1;
    if (!current || current.texts.length >= limits.chats || bytes + size > limits.bytes) {
      current = { start: index, texts: [] };
      batches.push(current);
      bytes = 1;
    }
    current.texts.push(text);
    bytes += size;
  });
  return batches;
}

export type ImportOutcome = {
  /** Chats made, in the file's order. */
  imported: ChatImportAnswer['items'];
  /** Chats with nothing to import. */
  skipped: number;
  /** Parts left out (files, images, calls that never ended). */
  droppedParts: number;
  /** Requests the API refused: which chats (1-based, inclusive) and why. */
  failures: { from: number; to: number; error: unknown }[];
  total: number;
};

/**
 * Imports the chats in `text` (one chat or a list of them), reporting `(done, total)` after each
 * request. @throws {SyntaxError} when the file is not JSON.
 */
export async function importChatFile(text: string, onProgress: (done: number, total: number) => void = () => {}): Promise<ImportOutcome> {
  const parsed: unknown = JSON.parse(text);
  const chats = Array.isArray(parsed) ? parsed : [parsed];
  const outcome: ImportOutcome = { imported: [], skipped: 0, droppedParts: 0, failures: [], total: chats.length };
  // An empty list goes as is, for the API's own answer ("The file holds no chats").
  const batches = chats.length > 0 ? importBatches(chats) : [{ start: 0, texts: [] }];
  onProgress(0, chats.length);
  for (const batch of batches) {
    try {
      const answer = await apiFetch<ChatImportAnswer>('/api/sessions/import', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${batch.texts.join(',')}]` });
      outcome.imported.push(...answer.items);
      outcome.skipped += answer.skipped.length;
      outcome.droppedParts += answer.items.reduce((sum, item) => sum + item.droppedParts, 0);
    } catch (error) {
      outcome.failures.push({ from: batch.start + 1, to: batch.start + batch.texts.length, error });
    }
    onProgress(batch.start + batch.texts.length, chats.length);
  }
  return outcome;
}
