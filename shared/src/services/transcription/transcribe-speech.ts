import { z } from 'zod';
import { causeOf, scrubSecret } from '../upstream-error';

/** Where a transcription goes: a model row's OpenAI-compatible base URL, its model id and its key. */
export type TranscriptionEndpoint = { baseUrl: string; modelId: string; apiKey: string | null };

export type TranscriptionAudio = { data: Uint8Array; mediaType: string; fileName: string };

export type TranscriptionOutcome =
  | { ok: true; text: string }
  /** `message` is safe to show: the API key is scrubbed from anything the upstream said. */
  | { ok: false; failure: 'unreachable' | 'timeout' | 'upstream-error' | 'malformed-answer'; status?: number; message: string };

/** Five minutes of speech take whisper-1 well under a minute; a hung upstream must not hold the request. */
export const TRANSCRIPTION_TIMEOUT_MS = 120_000;
const MAX_UPSTREAM_MESSAGE = 300;

const transcriptionAnswer = z.object({ text: z.string() });

/** OpenAI's `{ error: { message } }`, and the `{ error: "…" }` / `{ detail }` other compatible servers send. */
const upstreamError = z.union([
  z.object({ error: z.object({ message: z.string() }) }).transform((body) => body.error.message),
  z.object({ error: z.string() }).transform((body) => body.error),
  z.object({ detail: z.string() }).transform((body) => body.detail),
]);

/**
 * `POST {baseUrl}/audio/transcriptions` (multipart: `file`, `model`, `response_format=json`,
 * optional `language`), as OpenAI and compatible servers (Groq, LocalAI, faster-whisper-server,
 * vLLM) take it. The base URL is admin-configured, as the chat models' are, and is called the way
 * the worker calls them: directly, with no host policy (that is the fetch tool's, for model-chosen
 * URLs). Failures come back as values with a message that names what went wrong.
 */
export async function transcribeSpeech(
  endpoint: TranscriptionEndpoint,
  audio: TranscriptionAudio,
  options: { language?: string; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<TranscriptionOutcome> {
  const form = new FormData();
  form.set('file', new Blob([audio.data as Uint8Array<ArrayBuffer>], { type: audio.mediaType }), audio.fileName);
  form.set('model', endpoint.modelId);
  form.set('response_format', 'json');
  if (options.language) form.set('language', options.language);

  const timeout = AbortSignal.timeout(options.timeoutMs ?? TRANSCRIPTION_TIMEOUT_MS);
  const scrub = (text: string) => scrubSecret(text, endpoint.apiKey);
  let response: Response;
  try {
    response = await fetch(`${endpoint.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, {
      method: 'POST',
      headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
      body: form,
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
  } catch (error) {
    if (timeout.aborted) return { ok: false, failure: 'timeout', message: `The transcription model did not answer within ${Math.round((options.timeoutMs ?? TRANSCRIPTION_TIMEOUT_MS) / 1000)} s` };
    return { ok: false, failure: 'unreachable', message: `The transcription model could not be reached (${scrub(causeOf(error))})` };
  }

  const body = await response.text().catch(() => '');
  if (!response.ok) {
    const said = upstreamError.safeParse(parseJson(body));
    const detail = scrub((said.success ? said.data : body).trim()).slice(0, MAX_UPSTREAM_MESSAGE);
    return { ok: false, failure: 'upstream-error', status: response.status, message: `The transcription model failed with HTTP ${response.status}${detail ? `: ${detail}` : ''}` };
  }
  const answer = transcriptionAnswer.safeParse(parseJson(body));
  if (!answer.success) return { ok: false, failure: 'malformed-answer', status: response.status, message: 'The transcription model answered without a `text` field (is it an OpenAI-compatible transcription endpoint?)' };
  return { ok: true, text: answer.data.text.trim() };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
