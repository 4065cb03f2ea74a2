/**
 * What may be attached, decided by the bytes, not by the name or the type a client declares: an
 * image by its signature (PNG, JPEG, GIF, WebP: what vision models take), a PDF by its header (the
 * model reads its text), else text when it is valid UTF-8 without NUL bytes. No SVG: it is a page
 * that can run script, not a picture.
 *
 * Browser-safe (no Node or database imports): the web app checks a picked file against the same
 * limits before uploading it (`@agentq/shared/attachment-rules`).
 */

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_PDF_BYTES = 10 * 1024 * 1024;
/** About 130,000 tokens of English: more would not fit most models' context beside the chat. */
export const MAX_TEXT_FILE_BYTES = 512 * 1024;
/** Files one message may carry. */
export const MAX_ATTACHMENTS = 10;
/** The upload route's body limit: the largest file plus the multipart envelope. */
export const CHAT_FILE_UPLOAD_LIMIT_BYTES = MAX_PDF_BYTES + 64 * 1024;

export const PDF_MEDIA_TYPE = 'application/pdf';

const FILE_URL_PREFIX = 'agentq-file:';

/** The URL a message's file part names a stored file by. */
export const chatFileUrl = (id: string) => `${FILE_URL_PREFIX}${id}`;

/** The file id a part's URL names, or undefined for any other URL. */
export function chatFileIdOf(url: unknown): string | undefined {
  return typeof url === 'string' && url.startsWith(FILE_URL_PREFIX) ? url.slice(FILE_URL_PREFIX.length) : undefined;
}

const IMAGE_SIGNATURES: { mediaType: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { mediaType: 'image/png', matches: (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mediaType: 'image/jpeg', matches: (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]) },
  { mediaType: 'image/gif', matches: (bytes) => startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) },
  { mediaType: 'image/webp', matches: (bytes) => startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
];

/** The image types kept (and shown inline): what the signatures above recognise. */
export const IMAGE_MEDIA_TYPES = IMAGE_SIGNATURES.map((signature) => signature.mediaType);

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

/** The name a file is kept under: its last path segment, without control or direction characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim().slice(0, 200);
  return cleaned || 'file';
}

export type UploadVerdict = { ok: true; mediaType: string } | { ok: false; status: 413 | 415; message: string };

const tooBig = (kind: string, bytes: number): UploadVerdict => ({ ok: false, status: 413, message: `${kind} can be up to ${bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`}` });

/** Whether these bytes may be attached, and as what. */
export function judgeUpload(bytes: Uint8Array, name: string): UploadVerdict {
  if (bytes.length === 0) return { ok: false, status: 415, message: 'The file is empty' };
  const image = IMAGE_SIGNATURES.find((signature) => signature.matches(bytes));
  if (image) return bytes.length > MAX_IMAGE_BYTES ? tooBig('Images', MAX_IMAGE_BYTES) : { ok: true, mediaType: image.mediaType };
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return bytes.length > MAX_PDF_BYTES ? tooBig('PDF files', MAX_PDF_BYTES) : { ok: true, mediaType: PDF_MEDIA_TYPE };
  if (!isText(bytes)) return { ok: false, status: 415, message: 'Only images (PNG, JPEG, GIF, WebP), PDF files and UTF-8 text files can be attached' };
  if (bytes.length > MAX_TEXT_FILE_BYTES) return tooBig('Text files', MAX_TEXT_FILE_BYTES);
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  return { ok: true, mediaType: TEXT_TYPES[extension] ?? 'text/plain' };
}
