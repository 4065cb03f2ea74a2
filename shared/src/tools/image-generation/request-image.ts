import { z } from 'zod';
import type { ImageEndpoint } from '../../services/image-model';
import { pictureTypeOf } from './image-bytes';
import { causeOf, scrubSecret } from '../../services/upstream-error';

/** The largest answer read from the endpoint: a base64 picture of about 15 MiB, far above what 1792x1024 needs. */
export const MAX_IMAGE_RESPONSE_BYTES = 20 * 1024 * 1024;

export type ImageOutcome = { ok: true; bytes: Uint8Array; mediaType: string; extension: string; revisedPrompt?: string } | { ok: false; message: string };

const imageAnswer = z.object({ data: z.array(z.object({ b64_json: z.string().min(1), revised_prompt: z.string().optional() })).min(1) });

/**
 * `POST {baseUrl}/images/generations` for one picture as base64, bounded in time and size. Failures
 * are values whose message names the fix and never holds the key.
 */
export async function requestImage(endpoint: ImageEndpoint, request: { prompt: string; size: string; timeoutMs: number; signal?: AbortSignal }): Promise<ImageOutcome> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const scrub = (text: string) => scrubSecret(text, endpoint.apiKey);
  let body: string;
  let status: number;
  try {
    const response = await fetch(`${endpoint.baseUrl.replace(/\/+$/, '')}/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }) },
      body: JSON.stringify({ model: endpoint.modelId, prompt: request.prompt, n: 1, size: request.size, response_format: 'b64_json' }),
      signal,
    });
    status = response.status;
    const read = await readBounded(response, MAX_IMAGE_RESPONSE_BYTES);
    if (read === undefined) return { ok: false, message: `The image model answered with more than ${MAX_IMAGE_RESPONSE_BYTES / 1024 / 1024} MiB; ask an admin to check its "Generates images" model` };
    body = read;
  } catch (error) {
    if (timeout.aborted) return { ok: false, message: `The image model did not answer within ${Math.round(request.timeoutMs / 1000)} s; try again, or ask an admin to raise the tool's timeout` };
    if (request.signal?.aborted) return { ok: false, message: 'Cancelled' };
    return { ok: false, message: `The image model could not be reached (${scrub(causeOf(error))}); ask an admin to check its base URL` };
  }
  if (status < 200 || status > 299) {
    const hint = status === 401 || status === 403 ? '; ask an admin to check the API key of the "Generates images" model' : '';
    return { ok: false, message: `The image model failed with HTTP ${status}${body ? `: ${scrub(body.trim()).slice(0, 300)}` : ''}${hint}` };
  }
  let parsed: z.ZodSafeParseResult<z.infer<typeof imageAnswer>>;
  try {
    parsed = imageAnswer.safeParse(JSON.parse(body));
  } catch {
    parsed = imageAnswer.safeParse(undefined);
  }
  if (!parsed.success) return { ok: false, message: 'The image model answered without `data[0].b64_json` (is it an OpenAI-compatible /images/generations endpoint that returns base64?)' };
  const first = parsed.data.data[0]!;
  const bytes = new Uint8Array(Buffer.from(first.b64_json, 'base64'));
  const type = pictureTypeOf(bytes);
  if (!type) return { ok: false, message: 'The image model answered with something that is not a PNG, JPEG or WebP picture' };
  return { ok: true, bytes, ...type, ...(first.revised_prompt && { revisedPrompt: first.revised_prompt }) };
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
