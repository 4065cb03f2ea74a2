import {
  findTranscriptionModel,
  judgeAudio,
  MAX_TRANSCRIPTION_BYTES,
  SecretDecryptionError,
  TRANSCRIBABLE_TYPES,
  transcribeSpeech,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { takeRateLimit, type RateLimit } from '../security/rate-limit';
import { uploadedFile } from './chat-files';

/** Recordings take more than the API's usual body limit (app.ts). */
export const TRANSCRIPTION_PATH = '/api/transcriptions';

/** Each transcription is a paid upstream call: per user, across API processes. */
export const DEFAULT_TRANSCRIPTION_RATE_LIMIT: RateLimit = { max: 10, windowSeconds: 60 };

/** ISO-639-1 (whisper's `language`), from the UI's locale; optional, the model detects it otherwise. */
const languageField = z
  .string()
  .trim()
  .regex(/^[a-z]{2,3}$/, 'Send `language` as an ISO-639-1 code such as en or zh, or leave it out')
  .optional();

/**
 * Dictation (`POST /api/transcriptions`): a recording in, its text out, through the transcription
 * model an admin configured (models.ts: the one flagged "Transcribes speech"). Nothing is stored.
 */
export const transcriptionRoutes = new Hono<AppEnv>().use(requireUser).post(
  '/',
  describeRoute({
    tags: ['chat'],
    summary: 'Transcribe a recording for the message box (dictation): 200 { text }',
    description: `multipart/form-data with a \`file\` field (${TRANSCRIBABLE_TYPES.join(', ')}; up to ${MAX_TRANSCRIPTION_BYTES / 1024 / 1024} MiB; the type declared must match the bytes) and an optional \`language\` (ISO-639-1, e.g. en). Sent to \`{baseUrl}/audio/transcriptions\` of the model flagged "Transcribes speech". 404 when no such model is enabled, 403 when it is for admins only, 413 too big, 415 not audio, 429 too many in a minute, 502 when the model fails.`,
    requestBody: {
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, language: { type: 'string', example: 'en' } }, required: ['file'] },
        },
      },
    },
  }),
  async (c) => {
    const user = currentUser(c);
    const file = await uploadedFile(() => c.req.parseBody());
    // Parsed once: hono keeps the request's form data.
    const language = languageField.safeParse((await c.req.parseBody()).language);
    if (!language.success) throw new ApiError(400, 'validation_failed', language.error.issues[0]!.message, { issues: language.error.issues.map((issue) => ({ ...issue, path: ['language'] })) });
    const audio = new Uint8Array(await file.arrayBuffer());
    const verdict = judgeAudio(file.type, audio);
    if (!verdict.ok) throw new ApiError(verdict.status, verdict.status === 413 ? 'payload_too_large' : verdict.status === 415 ? 'unsupported_media_type' : 'bad_request', verdict.message);

    const lookup = await findTranscriptionModel(c.get('db'), { isAdmin: user.role === 'admin', groupIds: user.groupIds }, c.get('config').appSecret).catch((error: unknown) => {
      if (!(error instanceof SecretDecryptionError)) throw error;
      throw new ApiError(503, 'service_unavailable', "The transcription model's API key cannot be read (APP_SECRET changed?): an admin must enter it again");
    });
    if (!lookup.ok) {
      if (lookup.reason === 'admins-only') throw new ApiError(403, 'forbidden', 'The transcription model is for administrators only');
      if (lookup.reason === 'not-in-groups') throw new ApiError(403, 'forbidden', 'The transcription model is only for some groups of users, and you are in none of them');
      throw new ApiError(404, 'no_transcription_model', 'Dictation is not set up: an admin must mark an enabled model "Transcribes speech" (Admin → Models)');
    }

    const decision = await takeRateLimit(c.get('redis'), c.get('queues').prefix, 'transcriptions', user.id, c.get('config').transcriptionRateLimit ?? DEFAULT_TRANSCRIPTION_RATE_LIMIT);
    if (!decision.allowed) {
      c.header('retry-after', String(decision.retryAfterSeconds));
      throw new ApiError(429, 'rate_limited', `Too many transcriptions: try again in ${decision.retryAfterSeconds} s`);
    }

    const outcome = await transcribeSpeech(
      lookup.model,
      { data: audio, mediaType: verdict.mediaType, fileName: verdict.fileName },
      { language: language.data, signal: c.req.raw.signal },
    );
    if (!outcome.ok) {
      c.get('logger').warn({ requestId: c.get('requestId'), modelId: lookup.model.id, failure: outcome.failure, status: outcome.status, message: outcome.message }, 'transcription failed');
      throw new ApiError(502, 'transcription_failed', outcome.message);
    }
    return c.json({ text: outcome.text });
  },
);
