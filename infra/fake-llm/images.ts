import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/**
 * `POST /v1/images/generations` of the fake LLM: a small PNG made on the spot, one solid colour
 * derived from the prompt (the same prompt, the same colour), so tests see a real picture without a
 * model. The PNG is 64×64 whatever size is asked for: only its bytes matter to agentq.
 */

export const FAKE_IMAGE_SIDE = 64;

export type ImageRequest = { model: string; prompt: string; n: unknown; size: unknown; responseFormat: unknown; authorization: string | undefined };

export type ImagesAnswer = { status: number; body: unknown; request?: ImageRequest };

/** The colour a prompt gets: the first three bytes of its SHA-256. */
export function promptColour(prompt: string): [number, number, number] {
  const digest = createHash('sha256').update(prompt).digest();
  return [digest[0]!, digest[1]!, digest[2]!];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A `side`×`side` RGB PNG of one colour. */
export function solidPng([red, green, blue]: readonly [number, number, number], side = FAKE_IMAGE_SIDE): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + side * 3);
  for (let x = 0; x < side; x++) row.set([red, green, blue], 1 + x * 3); // filter byte 0 first
  const pixels = Buffer.concat(Array.from({ length: side }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

/** The answer to one `/v1/images/generations` body, in OpenAI's shape; `b64Json` replaces the picture (to send bad bytes). */
export function answerImages(body: unknown, authorization: string | undefined, b64Json?: string): ImagesAnswer {
  const request = body as { model?: unknown; prompt?: unknown; n?: unknown; size?: unknown; response_format?: unknown } | null;
  if (!request || typeof request.model !== 'string' || typeof request.prompt !== 'string' || request.prompt.length === 0) {
    return { status: 400, body: { error: { message: 'The request needs `model` and `prompt` (non-empty strings).', type: 'invalid_request_error' } } };
  }
  return {
    status: 200,
    request: { model: request.model, prompt: request.prompt, n: request.n, size: request.size, responseFormat: request.response_format, authorization },
    body: { created: Math.floor(Date.now() / 1000), data: [{ b64_json: b64Json ?? solidPng(promptColour(request.prompt)).toString('base64'), revised_prompt: request.prompt }] },
  };
}
