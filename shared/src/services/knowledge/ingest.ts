import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { knowledgeChunks, knowledgeFiles } from '../../db/schema';
import type { ResolveHostname } from '../../tools/fetch/assert-safe-url';
import { fetchWebPage, pageDocument } from '../../tools/fetch/fetch-web-page';
import { cleanFileName, PDF_MEDIA_TYPE } from '../chat-files/judge-upload';
import { extractPdfText, MAX_PDF_PAGES, type PdfText } from '../chat-files/pdf-text';
import { SecretDecryptionError } from '../secrets';
import { chunkText } from './chunk-text';
import { embedTexts, findEmbeddingModel } from './embeddings';
import { encodeVector } from './vector-ranking';

/** An embedding call failed and attempts remain: thrown so the queue backs off and tries again. */
export class EmbeddingFailedError extends Error {
  override name = 'EmbeddingFailedError';
}

export type IngestOutcome =
  | { status: 'ready'; chunkCount: number; embedded: boolean }
  | { status: 'failed'; error: string }
  /** The file was deleted before (or while) it was processed. */
  | { status: 'gone' };

const PDF_FAILURES: Record<Exclude<PdfText, { ok: true }>['reason'], string> = {
  encrypted: 'The PDF is password-protected; remove the password and upload it again',
  invalid: 'The PDF could not be read; it may be damaged',
  'no-text': 'The PDF has no text to read (a scan?)',
  timeout: 'Reading the PDF took too long',
  'too-many-pages': `PDF files can have up to ${MAX_PDF_PAGES} pages`,
};

/** Rows per INSERT: a chunk with a 1,536-dimension vector is ~20 KB of parameters. */
const INSERT_BATCH = 200;

export type IngestOptions = {
  appSecret: string;
  finalAttempt: boolean;
  signal?: AbortSignal;
  /** Fetch a web page's file again even though its page is stored. */
  refetch?: boolean;
  /** FETCH_ALLOW_PRIVATE_NETWORKS, for a web page's fetch. */
  allowPrivateNetworks?: boolean;
  /** DNS for a web page's fetch (tests stub it); the system resolver when absent. */
  resolve?: ResolveHostname;
};

type KnowledgeFileRow = typeof knowledgeFiles.$inferSelect;

/**
 * Fetches a web page's file (fetchWebPage: the fetch tool's guarded path) and stores its Markdown as
 * the file's bytes, named by the page's title. A page that cannot be fetched fails the file with the
 * reason and leaves it without bytes, so processing it again fetches it again.
 */
async function fetchKnowledgePage(db: Database, file: KnowledgeFileRow, options: IngestOptions): Promise<{ status: 'fetched'; file: KnowledgeFileRow } | IngestOutcome> {
  const outcome = await fetchWebPage(file.sourceUrl!, { allowPrivateNetworks: options.allowPrivateNetworks ?? false, resolve: options.resolve, signal: options.signal });
  if (!outcome.ok) {
    const updated = await db
      .update(knowledgeFiles)
      .set({ status: 'failed', error: outcome.reason, chunkCount: 0, data: Buffer.alloc(0), size: 0 })
      .where(eq(knowledgeFiles.id, file.id))
      .returning({ id: knowledgeFiles.id });
    if (updated.length === 0) return { status: 'gone' };
    await db.delete(knowledgeChunks).where(eq(knowledgeChunks.fileId, file.id));
    return { status: 'failed', error: outcome.reason };
  }
  const data = Buffer.from(pageDocument(outcome.page), 'utf8');
  const [row] = await db
    .update(knowledgeFiles)
    .set({ name: cleanFileName(outcome.page.title), mediaType: 'text/markdown', data, size: data.length })
    .where(eq(knowledgeFiles.id, file.id))
    .returning();
  return row ? { status: 'fetched', file: row } : { status: 'gone' };
}

/** Marks a file failed with a reason the owner sees (no key, no stack); `gone` when it was deleted meanwhile. */
export async function markKnowledgeFileFailed(db: Database, fileId: string, error: string): Promise<IngestOutcome> {
  const updated = await db.update(knowledgeFiles).set({ status: 'failed', error, chunkCount: 0 }).where(eq(knowledgeFiles.id, fileId)).returning({ id: knowledgeFiles.id });
  return updated.length > 0 ? { status: 'failed', error } : { status: 'gone' };
}

/**
 * Turns an uploaded file into searchable chunks: reads its text (a PDF's on the thread pool), splits it
 * (chunkText), embeds the chunks when a model is flagged "Embeds text", and stores them with the file
 * marked `ready` in one transaction, replacing any chunks an earlier attempt left. A file with no text
 * fails with the reason; an embedding failure throws EmbeddingFailedError while `finalAttempt` is false.
 * A web page's file is fetched first when it has no bytes yet (or `refetch` asks), see fetchKnowledgePage.
 */
export async function ingestKnowledgeFile(db: Database, fileId: string, options: IngestOptions): Promise<IngestOutcome> {
  const [stored] = await db.select().from(knowledgeFiles).where(eq(knowledgeFiles.id, fileId));
  if (!stored) return { status: 'gone' };
  let file = stored;
  if (file.sourceUrl && (options.refetch || file.data.length === 0)) {
    const fetched = await fetchKnowledgePage(db, file, options);
    if (fetched.status !== 'fetched') return fetched;
    file = fetched.file;
  }

  let text: string;
  if (file.mediaType === PDF_MEDIA_TYPE) {
    const pdf = await extractPdfText(new Uint8Array(file.data));
    if (!pdf.ok) return markKnowledgeFileFailed(db, fileId, PDF_FAILURES[pdf.reason]);
    text = pdf.text;
  } else {
    text = new TextDecoder('utf-8').decode(file.data);
  }
  const chunks = chunkText(text);
  if (chunks.length === 0) return markKnowledgeFileFailed(db, fileId, 'The file has no text to index');

  let model: Awaited<ReturnType<typeof findEmbeddingModel>>;
  try {
    model = await findEmbeddingModel(db, options.appSecret);
  } catch (error) {
    if (!(error instanceof SecretDecryptionError)) throw error;
    return markKnowledgeFileFailed(db, fileId, "The embedding model's API key cannot be decrypted (was APP_SECRET changed?): an admin must enter it again");
  }
  let vectors: number[][] | null = null;
  if (model) {
    const embedded = await embedTexts(model, chunks.map((chunk) => `${file.name}\n\n${chunk}`), { signal: options.signal });
    if (!embedded.ok) {
      if (!options.finalAttempt) throw new EmbeddingFailedError(embedded.message);
      return markKnowledgeFileFailed(db, fileId, embedded.message);
    }
    vectors = embedded.vectors;
  }

  return db.transaction(async (tx) => {
    // The update locks the row first: a delete racing this waits, or has already won (gone).
    const updated = await tx
      .update(knowledgeFiles)
      .set({ status: 'ready', error: null, chunkCount: chunks.length, embeddingModel: vectors ? model!.modelId : null })
      .where(eq(knowledgeFiles.id, fileId))
      .returning({ id: knowledgeFiles.id });
    if (updated.length === 0) return { status: 'gone' } as const;
    await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.fileId, fileId));
    const rows = chunks.map((chunk, position) => ({ fileId, baseId: file.baseId, position, text: chunk, vector: vectors?.[position] ? encodeVector(vectors[position]) : null }));
    for (let start = 0; start < rows.length; start += INSERT_BATCH) await tx.insert(knowledgeChunks).values(rows.slice(start, start + INSERT_BATCH));
    return { status: 'ready', chunkCount: chunks.length, embedded: vectors !== null } as const;
  });
}
