import type { Database } from '../../db/client';
import { findFileMadeByCall, keepFileMadeByCall } from '../../services/chat-files/chat-files';
import { findImageModel } from '../../services/image-model';
import { defineToolType, type ToolResult } from '../define-tool-type';
import { parseToolCall } from '../parse-tool-call';
import { imageGenerationConfigSchema, imageGenerationInputSchema } from './image-generation-schemas';
import { requestImage } from './request-image';
import { imageGenerationTextZh } from './zh';

export { IMAGE_SIZES, imageGenerationConfigSchema, imageGenerationInputSchema, type ImageGenerationToolConfig, type ImageGenerationToolInput } from './image-generation-schemas';

/** Outside a chat the picture comes back inline, in the result's metadata, only up to this size. */
export const MAX_INLINE_IMAGE_BYTES = 2 * 1024 * 1024;

/**
 * What the tool card shows, in `metadata.image`: in a chat the stored file (served by
 * `GET /api/sessions/:sessionId/files/:fileId`), outside one a data URL. Never in what the model reads.
 */
export type GeneratedImage = { prompt: string; size: string; mediaType: string; bytes: number } & ({ sessionId: string; fileId: string } | { dataUrl: string });

/** What the model reads: that the picture exists and is shown, never its bytes or its address. */
function describeResult(prompt: string, size: string): string {
  const shown = prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt;
  return `Generated an image (${size}) for the prompt "${shown}"; it is shown to the user with this tool call. Do not repeat it as a link or a Markdown image: describe it briefly if useful.`;
}

/**
 * `image-generation`: draws a picture with the enabled model flagged "Generates images" (OpenAI-compatible
 * `POST {baseUrl}/images/generations`). In a chat the picture is kept as a file of the chat, named by the
 * call, so it persists, is served by the chat's file route and goes with the chat.
 */
export const imageGenerationToolType = defineToolType({
  type: 'image-generation',
  label: 'Image generation',
  summary: 'Draws a picture from a description with the model flagged "Generates images" and shows it in the chat.',
  translations: { zh: imageGenerationTextZh },
  configSchema: imageGenerationConfigSchema,
  inputSchema: imageGenerationInputSchema,
  describe: (config) =>
    `Generate a picture from a detailed description (default size ${config.size}; 1024x1792 is portrait, 1792x1024 landscape) and show it to the user. ` +
    'Use it when the user asks for an image, drawing, illustration or photo-like picture. Write the prompt in English with the subject, setting, style and colours. One call makes one picture.',
  // A call run again finds the picture it kept in the chat instead of drawing another.
  effect: { possible: ['idempotent'], summary: 'Draws one picture per call and keeps it in the chat; a call run again shows the picture it already made.' },
  timeoutMs: (config) => config.timeoutMs + 5_000,
  execute: async (input, config, context): Promise<ToolResult> => {
    const started = performance.now();
    const metadata = (extra: Record<string, unknown> = {}) => ({ durationMs: Math.round(performance.now() - started), ...extra });
    const parsed = parseToolCall(
      { input: imageGenerationInputSchema, config: imageGenerationConfigSchema },
      { input, config: config ?? {}, durationMs: () => Math.round(performance.now() - started), fixableInput: true },
    );
    if (!parsed.ok) return parsed.result;
    const db = context.services.db as Database | undefined;
    const appSecret = context.services.appSecret as string | undefined;
    if (!db || !appSecret) return { success: false, error: 'The image-generation tool has no database here; it runs inside the agentq worker.', metadata: metadata() };
    const { prompt } = parsed.input;
    const size = parsed.input.size ?? parsed.config.size;
    const inChat = context.sessionId && context.userId ? { sessionId: context.sessionId, userId: context.userId } : null;
    const madeByCall = context.idempotencyKey ?? (context.runId && context.toolCallId ? `${context.runId}:${context.toolCallId}` : null);
    const success = (image: GeneratedImage): ToolResult => ({ success: true, data: describeResult(prompt, size), metadata: metadata({ image }) });

    if (inChat && madeByCall) {
      const kept = await findFileMadeByCall(db, inChat.sessionId, madeByCall);
      if (kept) return success({ prompt, size, mediaType: kept.mediaType, bytes: kept.size, sessionId: inChat.sessionId, fileId: kept.id });
    }
    let endpoint;
    try {
      endpoint = await findImageModel(db, appSecret);
    } catch {
      return { success: false, error: 'The API key of the "Generates images" model cannot be read (APP_SECRET changed?): ask an admin to enter it again on Admin → Models.', metadata: metadata() };
    }
    if (!endpoint) return { success: false, error: 'No enabled model is flagged "Generates images": ask an admin to flag one on Admin → Models.', metadata: metadata() };

    const outcome = await requestImage(endpoint, { prompt, size, timeoutMs: parsed.config.timeoutMs, signal: context.signal });
    if (!outcome.ok) return { success: false, error: outcome.message, metadata: metadata() };
    const picture = { prompt, size, mediaType: outcome.mediaType, bytes: outcome.bytes.byteLength };

    if (inChat) {
      const file = await keepFileMadeByCall(db, { ...inChat, madeByCall: madeByCall ?? `standalone:${crypto.randomUUID()}`, name: `generated-image.${outcome.extension}`, mediaType: outcome.mediaType, data: outcome.bytes });
      return success({ ...picture, sessionId: inChat.sessionId, fileId: file.id });
    }
    if (outcome.bytes.byteLength > MAX_INLINE_IMAGE_BYTES) {
      return {
        success: false,
        error: `The picture is ${(outcome.bytes.byteLength / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_INLINE_IMAGE_BYTES / 1024 / 1024} MiB returned outside a chat: use this tool from a chat, where pictures are kept with it.`,
        metadata: metadata(),
      };
    }
    return success({ ...picture, dataUrl: `data:${outcome.mediaType};base64,${Buffer.from(outcome.bytes).toString('base64')}` });
  },
});
