import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';

export type CappedBody = {
  bytes: Buffer;
  /** True when the body was longer than the cap and the rest was never read. */
  truncated: boolean;
};

/**
 * Reads at most `maxBytes` of a (decoded) response body. The cap is enforced while streaming:
 * as soon as one byte too many arrives the stream is destroyed, which aborts the download, so
 * neither a missing nor a lying Content-Length (nor a compression bomb) can make us buffer more.
 */
export async function readBodyCapped(body: Readable, maxBytes: number, contentEncoding?: string): Promise<CappedBody> {
  const stream = decodeContent(body, contentEncoding);
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const room = maxBytes - total;
      if (buffer.length > room) {
        chunks.push(buffer.subarray(0, room));
        total += room;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      total += buffer.length;
    }
  } finally {
    // Leaving the loop early already destroys `stream`; the raw body must go too, or the
    // socket keeps receiving the rest of the response.
    if (!body.destroyed) {
      // undici reports its own abort as a stream error; nobody else is listening any more.
      body.on('error', () => {});
      body.destroy();
    }
  }
  return { bytes: Buffer.concat(chunks, total), truncated };
}

function decodeContent(body: Readable, contentEncoding: string | undefined): Readable {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : encoding === 'zstd'
            ? createZstdDecompress()
            : undefined;
  if (!decoder) return body;
  // pipeline forwards a failure of either side to the other, so a broken body ends the loop with an error.
  return pipeline(body, decoder, () => {});
}

/** The charset named in a Content-Type header, if any. */
export function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1];
}

/** Decodes bytes as text with the declared charset, falling back to UTF-8 for unknown labels. */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = charsetOf(contentType) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

const BINARY_TYPE_PREFIXES = ['image/', 'audio/', 'video/', 'font/', 'model/'];
const BINARY_TYPES = new Set([
  'application/octet-stream', 'application/pdf', 'application/zip', 'application/gzip', 'application/x-gzip',
  'application/x-tar', 'application/x-7z-compressed', 'application/x-rar-compressed', 'application/wasm',
  'application/msword', 'application/vnd.ms-excel', 'application/x-protobuf',
]);

/** The media type without parameters, lower-cased ("text/html; charset=utf-8" → "text/html"). */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** True for media types that are certainly not text (SVG and other +xml types are text). */
export function isBinaryMediaType(mediaType: string): boolean {
  if (mediaType.endsWith('+xml') || mediaType.endsWith('+json')) return false;
  if (BINARY_TYPES.has(mediaType) || mediaType.startsWith('application/vnd.openxmlformats')) return true;
  return BINARY_TYPE_PREFIXES.some((prefix) => mediaType.startsWith(prefix));
}

/** Sniffs for binary content the way browsers do for text: a NUL byte in the first kilobyte. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 1024).includes(0);
}
