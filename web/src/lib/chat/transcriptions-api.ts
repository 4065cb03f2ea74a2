/** Dictation's one call: `POST /api/transcriptions`, a recording in, its text out. */
import { apiFetch } from '../api.ts';
import type { RouteOutput } from '../api-routes.ts';

export type Transcription = RouteOutput<'/transcriptions', '$post'>;

/** @throws {ApiError} 413 too long, 404/403 no model for this user, 429 too many, 502 the model failed. */
export async function transcribe(audio: Blob, language: string, signal?: AbortSignal): Promise<string> {
  const form = new FormData();
  form.set('file', audio, 'recording');
  form.set('language', language);
  return (await apiFetch<Transcription>('/api/transcriptions', { method: 'POST', body: form, signal })).text;
}
