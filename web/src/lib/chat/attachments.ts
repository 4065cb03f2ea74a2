/**
 * Files attached to chat messages, as the browser handles them: uploaded into the session just
 * before the message that carries them (`POST /api/sessions/:id/files`), then named in its
 * `attachments`; a stored question's file parts (`agentq-file:<id>`) say what it carried.
 */
import type { UIMessage } from 'ai';
import { apiFetch } from '../api.ts';
import { chatFileIdOf, IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_PDF_BYTES, MAX_TEXT_FILE_BYTES, PDF_MEDIA_TYPE } from '@agentq/shared/attachment-rules';
import { segment, type RouteOutput } from '../api-routes.ts';

/** `POST /api/sessions/:id/files` → 201. */
export type ChatFileView = RouteOutput<'/sessions/:id/files', '$post'>;
/** A file a question carried, as its bubble shows it. */
export type AttachedFile = { id: string; name: string; mediaType: string };

export { MAX_ATTACHMENTS } from '@agentq/shared/attachment-rules';

export const chatFileHref = (sessionId: string, fileId: string) => `/api/sessions/${segment(sessionId)}/files/${segment(fileId)}`;

export function uploadChatFile(sessionId: string, file: File): Promise<ChatFileView> {
  const body = new FormData();
  body.append('file', file, file.name);
  return apiFetch(`/api/sessions/${segment(sessionId)}/files`, { method: 'POST', body });
}

/** The files a stored message carries, in order. */
export function messageFiles(parts: UIMessage['parts']): AttachedFile[] {
  return parts.flatMap((part) => {
    const id = part.type === 'file' ? chatFileIdOf(part.url) : undefined;
    return part.type === 'file' && id ? [{ id, name: part.filename ?? 'file', mediaType: part.mediaType }] : [];
  });
}

export const isImage = (mediaType: string) => IMAGE_MEDIA_TYPES.includes(mediaType);

/** Why a picked file cannot go, before uploading it: too big for its kind (the server judges the bytes again). */
export function attachmentProblem(file: Pick<File, 'type' | 'size'>): 'imageTooBig' | 'pdfTooBig' | 'textTooBig' | undefined {
  if (isImage(file.type)) return file.size > MAX_IMAGE_BYTES ? 'imageTooBig' : undefined;
  if (file.type === PDF_MEDIA_TYPE) return file.size > MAX_PDF_BYTES ? 'pdfTooBig' : undefined;
  return file.size > MAX_TEXT_FILE_BYTES ? 'textTooBig' : undefined;
}

/** What the file picker offers: the image types, PDFs, and text files by type or common extension. */
export const ATTACH_ACCEPT = [...IMAGE_MEDIA_TYPES, PDF_MEDIA_TYPE, 'text/*', '.md,.csv,.tsv,.json,.jsonl,.yaml,.yml,.toml,.xml,.log,.ts,.js,.py,.go,.rs,.java,.c,.h,.cpp,.sql,.sh'].join(',');

/** "1.2 MB", "340 KB", "12 B": a file's size as its chip shows it. */
export function fileSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 100) / 10} KB`;
  return `${Math.round(bytes / 100_000) / 10} MB`;
}

// What already went up, per picked file: a send the API refused and the user retries reuses it.
const uploads = new WeakMap<File, { sessionId: string; view: ChatFileView }>();

/** Uploads `files` into session `sessionId`, each once, in parallel; the message then names them. */
export function uploadAttachments(sessionId: string, files: readonly File[]): Promise<ChatFileView[]> {
  return Promise.all(
    files.map(async (file) => {
      const done = uploads.get(file);
      if (done?.sessionId === sessionId) return done.view;
      const view = await uploadChatFile(sessionId, file);
      uploads.set(file, { sessionId, view });
      return view;
    }),
  );
}

/** A run body's `attachments` for uploaded files (none: no field). */
export const attachmentsOf = (views: readonly ChatFileView[]) => (views.length > 0 ? { attachments: views.map((view) => view.id) } : {});
