/**
 * The fake's `POST /v1/audio/transcriptions`, OpenAI's speech-to-text shape: a multipart body with
 * `file` and `model` (and optionally `language`, `response_format`), answered `{ text }` from a
 * transcription script. Every request is recorded as received, so a test can check what the API
 * sent upstream (model, language, type and size of the audio, its first bytes, the key).
 */

/** What one transcription request carried. */
export interface TranscriptionRequest {
  model: string;
  language: string | undefined;
  responseFormat: string | undefined;
  /** The file part's name (OpenAI tells formats apart by its extension) and type. */
  fileName: string;
  mimeType: string;
  byteCount: number;
  /** The audio's first 8 bytes in hex: `1a45dfa3…` is WebM (EBML), `4f676753…` Ogg. */
  leadingBytes: string;
  /** The Authorization header, to check which key the caller used. */
  authorization: string | undefined;
}

/** A scripted answer: the text, or an OpenAI-style error. */
export type TranscriptionTurn = { text: string } | { error: { status: number; message: string; type?: string } };

/** A fixed text, or a function of the request (which may also fail it). */
export type TranscriptionScript = string | ((request: TranscriptionRequest) => TranscriptionTurn | Promise<TranscriptionTurn>);

/** The demo model's answer: what arrived, and how to get real words. */
export const demoTranscription: TranscriptionScript = (request) => ({
  text: `Scripted demo transcription: ${(request.byteCount / 1024).toFixed(1)} KB of ${request.mimeType || 'audio'} received${request.language ? ` (language ${request.language})` : ''}. Point a model flagged "Transcribes speech" at a real endpoint (e.g. whisper-1) to hear your own words.`,
});

export function toTranscriptionTurn(script: TranscriptionScript, request: TranscriptionRequest): TranscriptionTurn | Promise<TranscriptionTurn> {
  return typeof script === 'string' ? { text: script } : script(request);
}

export type ParsedTranscription = { ok: true; request: TranscriptionRequest } | { ok: false; message: string };

/** Parses the multipart body with the platform's own form-data parser (undici's), as a server would. */
export async function parseTranscriptionRequest(body: Buffer, headers: { contentType: string | undefined; authorization: string | undefined }): Promise<ParsedTranscription> {
  if (!headers.contentType?.toLowerCase().startsWith('multipart/form-data')) {
    return { ok: false, message: 'Send the audio as multipart/form-data with a `file` and a `model` field.' };
  }
  let form: FormData;
  try {
    form = await new Request('http://fake-llm/v1/audio/transcriptions', { method: 'POST', headers: { 'content-type': headers.contentType }, body: new Uint8Array(body) }).formData();
  } catch (error) {
    return { ok: false, message: `The multipart body could not be parsed: ${error instanceof Error ? error.message : String(error)}` };
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof File)) return { ok: false, message: "Missing required parameter: 'file'." };
  if (typeof model !== 'string' || model === '') return { ok: false, message: "Missing required parameter: 'model'." };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return {
    ok: true,
    request: {
      model,
      language: text('language'),
      responseFormat: text('response_format'),
      fileName: file.name,
      mimeType: file.type,
      byteCount: bytes.length,
      leadingBytes: Buffer.from(bytes.subarray(0, 8)).toString('hex'),
      authorization: headers.authorization,
    },
  };
}
