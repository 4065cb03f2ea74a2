/**
 * Worker-thread side of reading a PDF's text (pdf-text.ts): pdf.js on an untrusted file can take
 * seconds, which would stall every request of the API process that received it.
 *
 * Loaded by Node directly (type stripping), not through tsx or a bundler: import only packages
 * and files with their `.ts` extension, and use only erasable TypeScript syntax.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { serveThreadTasks } from '../../threads/thread-task.ts';
import type { PdfText, PdfTextTask } from './pdf-text.ts';

serveThreadTasks(async ({ data, maxPages }: PdfTextTask): Promise<PdfText> => {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // Text only: no fonts loaded for rendering, no system fonts, no warnings on stdout. (This pdf.js
    // has no eval path for font programs at all, the CVE-2024-4367 kind.)
    document = await getDocumentProxy(data, { useSystemFonts: false, disableFontFace: true, verbosity: 0 });
  } catch (error) {
    return { ok: false, reason: (error as { name?: string } | null)?.name === 'PasswordException' ? 'encrypted' : 'invalid' };
  }
  try {
    if (document.numPages > maxPages) return { ok: false, reason: 'too-many-pages', pages: document.numPages };
    const { text } = await extractText(document, { mergePages: false });
    const pages = text.map((page) => page.trim());
    if (!pages.some((page) => page.length > 0)) return { ok: false, reason: 'no-text', pages: document.numPages };
    // Page marks let the model say where something is ("page 3").
    return { ok: true, pages: document.numPages, text: pages.map((page, index) => `[Page ${index + 1}]\n${page}`).join('\n\n') };
  } finally {
    await document.loadingTask.destroy();
  }
});
