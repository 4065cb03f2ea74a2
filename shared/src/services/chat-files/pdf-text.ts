import { sideEntryUrl } from '../../side-entry';
import { ThreadPool } from '../../threads/thread-pool';

/** A PDF with more pages is refused rather than read: its text would not fit a model's context anyway. */
export const MAX_PDF_PAGES = 500;
/** Reading a PDF's text that takes longer is given up (its thread is replaced). */
export const PDF_TEXT_TIMEOUT_MS = 20_000;

export type PdfTextTask = { data: Uint8Array; maxPages: number };
/** A PDF's text, page by page (`[Page n]` before each), or why it has none we can read. */
export type PdfText =
  | { ok: true; text: string; pages: number }
  | { ok: false; reason: 'encrypted' | 'invalid' | 'timeout' }
  | { ok: false; reason: 'too-many-pages' | 'no-text'; pages: number };

const pool = new ThreadPool<PdfTextTask, PdfText>({
  url: sideEntryUrl(import.meta.url, 'pdf-text-thread'),
  threads: 1,
  timeoutMs: PDF_TEXT_TIMEOUT_MS,
  onFailure: (_, failure) => ({ ok: false, reason: failure.reason === 'timeout' ? 'timeout' : 'invalid' }),
});

/** Reads a PDF's text on a worker thread (pdf.js, no font eval), within PDF_TEXT_TIMEOUT_MS. */
export function extractPdfText(data: Uint8Array): Promise<PdfText> {
  return pool.run({ data, maxPages: MAX_PDF_PAGES });
}
