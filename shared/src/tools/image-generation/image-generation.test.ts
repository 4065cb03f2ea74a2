import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { promptColour, solidPng, startFakeLlm, type FakeLlm } from '../../../../infra/fake-llm/server';
import type { DbHandle } from '../../db/client';
import { chatFiles, chatSessions, llmModels, users } from '../../db/schema';
import { newId } from '../../ids';
import { deleteChatFile, deleteUnsentUploads, getChatFile } from '../../services/chat-files/chat-files';
import { ConflictError } from '../../services/errors';
import { createModel, updateModel } from '../../services/models';
import { openEmbeddedTestDb } from '../../testing';
import type { ToolContext } from '../define-tool-type';
import { imageGenerationToolType, type GeneratedImage } from './index';

const APP_SECRET = 'image-generation-test-secret-0123456789';
const API_KEY = 'sk-image-secret-key-9876543210';
const PROMPT = 'A red fox asleep in fresh snow, watercolour';

let handle: DbHandle;
let llm: FakeLlm;
let userId: string;
let sessionId: string;
let modelId: string;

const config = imageGenerationToolType.configSchema.parse({});

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  const runId = newId('run');
  return {
    userId,
    runId,
    sessionId,
    toolCallId: 'call_1',
    idempotencyKey: `${runId}:call_1`,
    signal: new AbortController().signal,
    allowPrivateNetworks: false,
    services: { db: handle.db, appSecret: APP_SECRET },
    ...overrides,
  };
}

beforeAll(async () => {
  handle = await openEmbeddedTestDb();
  llm = await startFakeLlm();
  userId = newId('user');
  await handle.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'painter', role: 'user', passwordHash: 'x' });
  sessionId = newId('session');
  await handle.db.insert(chatSessions).values({ id: sessionId, userId });
  modelId = (await createModel(handle.db, { name: 'Painter', baseUrl: llm.url, modelId: 'gpt-image-1', apiKey: API_KEY, generatesImages: true }, APP_SECRET)).id;
});

afterAll(async () => {
  await llm.close();
  await handle.close();
});

beforeEach(() => {
  llm.images.length = 0;
  llm.setImageError(null);
  llm.setImageBase64(null);
});

describe('image-generation tool', () => {
  it('in a chat, draws with the "Generates images" model, keeps the picture as a chat file and tells the model only that it is shown', async () => {
    const call = context();
    const result = await imageGenerationToolType.execute({ prompt: PROMPT, size: '1792x1024' }, config, call);
    expect(result.success, result.error).toBe(true);
    expect(llm.images).toEqual([{ model: 'gpt-image-1', prompt: PROMPT, n: 1, size: '1792x1024', responseFormat: 'b64_json', authorization: `Bearer ${API_KEY}` }]);
    expect(result.data).toBe(`Generated an image (1792x1024) for the prompt "${PROMPT}"; it is shown to the user with this tool call. Do not repeat it as a link or a Markdown image: describe it briefly if useful.`);

    const image = result.metadata.image as GeneratedImage & { fileId: string };
    expect(image).toMatchObject({ prompt: PROMPT, size: '1792x1024', mediaType: 'image/png', sessionId });
    const file = await getChatFile(handle.db, sessionId, image.fileId);
    expect(file).toMatchObject({ userId, mediaType: 'image/png', name: 'generated-image.png', madeByCall: call.idempotencyKey });
    expect(Buffer.from(file.data).equals(solidPng(promptColour(PROMPT)))).toBe(true);

    // The same call again (a resumed run) shows the picture it made instead of drawing another.
    const again = await imageGenerationToolType.execute({ prompt: PROMPT, size: '1792x1024' }, config, call);
    expect((again.metadata.image as { fileId: string }).fileId).toBe(image.fileId);
    expect(llm.images).toHaveLength(1);

    // It goes with the chat only: not swept as an unsent upload, not deletable as one.
    expect(await deleteUnsentUploads(handle.db, { olderThanMs: -60_000 })).toBe(0);
    await expect(deleteChatFile(handle.db, sessionId, image.fileId)).rejects.toBeInstanceOf(ConflictError);
    await handle.db.delete(chatSessions).where(eq(chatSessions.id, sessionId));
    expect(await handle.db.select().from(chatFiles).where(eq(chatFiles.id, image.fileId))).toEqual([]);
    sessionId = newId('session');
    await handle.db.insert(chatSessions).values({ id: sessionId, userId });
  });

  it('uses the configured size when the call names none', async () => {
    const result = await imageGenerationToolType.execute({ prompt: 'a lighthouse' }, imageGenerationToolType.configSchema.parse({ size: '1024x1792' }), context());
    expect(result.success).toBe(true);
    expect(llm.images[0]!.size).toBe('1024x1792');
  });

  it('returns an upstream error as data naming the fix, without the key', async () => {
    llm.setImageError({ status: 401, message: `Incorrect API key provided: ${API_KEY}` });
    const call = context();
    const result = await imageGenerationToolType.execute({ prompt: PROMPT }, config, call);
    expect(result.success).toBe(false);
    expect(result.error).toContain('HTTP 401');
    expect(result.error).toContain('ask an admin to check the API key of the "Generates images" model');
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(await handle.db.select().from(chatFiles).where(eq(chatFiles.madeByCall, call.idempotencyKey!))).toEqual([]);
    // Nor a masked echo of it, as OpenAI words a refused key.
    llm.setImageError({ status: 401, message: 'Incorrect API key provided: sk-im***89.' });
    const masked = await imageGenerationToolType.execute({ prompt: PROMPT }, config, context());
    expect(masked.error).toContain('Incorrect API key provided: [redacted]');
    expect(masked.error).not.toContain('sk-im');
  });

  it('refuses an answer whose bytes are not a PNG, JPEG or WebP picture', async () => {
    llm.setImageBase64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64'));
    const call = context();
    const result = await imageGenerationToolType.execute({ prompt: PROMPT }, config, call);
    expect(result).toMatchObject({ success: false, error: 'The image model answered with something that is not a PNG, JPEG or WebP picture' });
    expect(await handle.db.select().from(chatFiles).where(eq(chatFiles.madeByCall, call.idempotencyKey!))).toEqual([]);
  });

  it('outside a chat, returns a small picture as a data URL in the metadata only', async () => {
    const result = await imageGenerationToolType.execute({ prompt: PROMPT }, config, context({ sessionId: null, runId: null, toolCallId: null, idempotencyKey: null }));
    expect(result.success).toBe(true);
    const image = result.metadata.image as { dataUrl: string };
    expect(image.dataUrl).toBe(`data:image/png;base64,${solidPng(promptColour(PROMPT)).toString('base64')}`);
    expect(String(result.data)).not.toContain('base64');

    // One past 2 MiB is refused, naming where it works.
    const big = Buffer.concat([solidPng([1, 2, 3]), Buffer.alloc(2 * 1024 * 1024)]);
    llm.setImageBase64(big.toString('base64'));
    const tooBig = await imageGenerationToolType.execute({ prompt: PROMPT }, config, context({ sessionId: null }));
    expect(tooBig.success).toBe(false);
    expect(tooBig.error).toContain('use this tool from a chat');
  });

  it('names the fix when no enabled model generates images', async () => {
    await updateModel(handle.db, modelId, { enabled: false }, APP_SECRET);
    try {
      const result = await imageGenerationToolType.execute({ prompt: PROMPT }, config, context());
      expect(result).toMatchObject({ success: false, error: 'No enabled model is flagged "Generates images": ask an admin to flag one on Admin → Models.' });
      expect(llm.images).toEqual([]);
    } finally {
      await updateModel(handle.db, modelId, { enabled: true }, APP_SECRET);
    }
  });

  it('is one model at a time, never the default', async () => {
    const second = await createModel(handle.db, { name: 'Painter 2', baseUrl: llm.url, modelId: 'dall-e-3', generatesImages: true }, APP_SECRET);
    expect((await handle.db.select().from(llmModels).where(eq(llmModels.generatesImages, true))).map((row) => row.id)).toEqual([second.id]);
    await expect(createModel(handle.db, { name: 'Both', baseUrl: llm.url, modelId: 'x', generatesImages: true, isDefault: true }, APP_SECRET)).rejects.toThrow('a model that generates images cannot be it');
    await updateModel(handle.db, modelId, { generatesImages: true }, APP_SECRET);
  });
});
