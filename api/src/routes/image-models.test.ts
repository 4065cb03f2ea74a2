import { llmModels } from '@agentq/shared/db';
import { getToolType } from '@agentq/shared/tools';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptColour, solidPng, startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import { createTestApp, TEST_APP_SECRET } from '../testing';

// This file alone flags image models in the shared test database (the flag is exclusive).
let t: Awaited<ReturnType<typeof createTestApp>>;
let llm: FakeLlm;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

const API_KEY = 'sk-image-model-key-0123456789';

beforeAll(async () => {
  t = await createTestApp();
  llm = await startFakeLlm();
  admin = await t.signUp('admin');
  user = await t.signUp('user');
});

afterAll(async () => {
  await llm.close();
  await t.close();
});

type Account = typeof admin;

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

async function createPainter(name: string) {
  const response = await send('POST', '/api/models', admin, { name, baseUrl: llm.url, modelId: 'gpt-image-1', apiKey: API_KEY, generatesImages: true });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  expect(text).not.toContain(API_KEY);
  return JSON.parse(text) as { id: string; generatesImages: boolean };
}

describe('the "Generates images" flag', () => {
  it('is held by one model at a time, never with the default, and such a model answers no chat nor agent', async () => {
    const first = await createPainter('Painter');
    expect(first.generatesImages).toBe(true);
    const second = await createPainter('Painter 2');
    expect((await (await send('GET', `/api/models/${first.id}`, admin)).json()).generatesImages).toBe(false);
    expect((await (await send('GET', `/api/models/${second.id}`, admin)).json()).generatesImages).toBe(true);
    expect((await t.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.generatesImages, true))).map((row) => row.id)).toEqual([second.id]);

    const both = await send('POST', '/api/models', admin, { name: 'Both', baseUrl: llm.url, modelId: 'gpt-image-1', generatesImages: true, isDefault: true });
    expect(both.status).toBe(400);
    expect((await both.json()).error.issues.map((issue: { path: string[] }) => issue.path)).toEqual([['generatesImages']]);
    const notBoolean = await send('PUT', `/api/models/${second.id}`, admin, { generatesImages: 'yes' });
    expect(notBoolean.status).toBe(400);
    expect(JSON.stringify(await notBoolean.json())).toContain('generatesImages');

    // Not offered for chats, and refused when named.
    const options = (await (await send('GET', '/api/chat-options', user)).json()) as { models: { id: string }[] };
    expect(options.models.map((model) => model.id)).not.toContain(second.id);
    const session = (await (await send('POST', '/api/sessions', user, {})).json()) as { id: string };
    const run = await send('POST', `/api/sessions/${session.id}/runs`, user, { content: 'Hello', modelId: second.id });
    expect(run.status).toBe(400);
    expect((await run.json()).error.message).toContain('generates images');

    // No agent answers with it: it cannot be given one, nor flagged while one uses it.
    const refusedAgent = await send('POST', '/api/agents', admin, { name: `Painter agent ${second.id}`, modelId: second.id });
    expect(refusedAgent.status).toBe(400);
    expect((await refusedAgent.json()).error.message).toContain('generates images');
    const chatModel = (await (await send('POST', '/api/models', admin, { name: 'Chatty', baseUrl: llm.url, modelId: 'chatty' })).json()) as { id: string };
    expect((await send('POST', '/api/agents', admin, { name: `Talker ${chatModel.id}`, modelId: chatModel.id })).status).toBe(201);
    const flagged = await send('PUT', `/api/models/${chatModel.id}`, admin, { generatesImages: true });
    expect(flagged.status).toBe(400);
    const refusal = await flagged.json();
    expect(refusal.error.message).toContain(`'Talker ${chatModel.id}'`);
    expect(refusal.error.issues.map((issue: { path: string[] }) => issue.path)).toEqual([['generatesImages']]);
    expect((await (await send('GET', `/api/models/${second.id}`, admin)).json()).generatesImages).toBe(true);

    // Only admins set it.
    expect((await send('PUT', `/api/models/${second.id}`, user, { generatesImages: false })).status).toBe(403);
  });
});

describe('a generated picture', () => {
  it('is a file of the chat, served to its owner only, and not deletable on its own', async () => {
    await createPainter('Painter 3');
    const session = (await (await send('POST', '/api/sessions', user, {})).json()) as { id: string };
    const imageGeneration = getToolType('image-generation');
    const result = await imageGeneration.execute({ prompt: 'a green door' }, imageGeneration.configSchema.parse({}), {
      userId: user.user.id, runId: 'run_image_test', sessionId: session.id, toolCallId: 'call_1', idempotencyKey: `run_image_test:call_1:${session.id}`,
      signal: new AbortController().signal, allowPrivateNetworks: false, services: { db: t.db, appSecret: TEST_APP_SECRET },
    });
    expect(result.success, result.error).toBe(true);
    const { fileId } = result.metadata.image as { fileId: string };

    const served = await send('GET', `/api/sessions/${session.id}/files/${fileId}`, user);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(solidPng(promptColour('a green door')))).toBe(true);
    // Another user, even an admin, gets nothing.
    const other = await t.signUp('user');
    expect((await send('GET', `/api/sessions/${session.id}/files/${fileId}`, other)).status).toBe(404);
    expect((await send('GET', `/api/sessions/${session.id}/files/${fileId}`, admin)).status).toBe(404);
    // It goes with the chat, not before.
    expect((await send('DELETE', `/api/sessions/${session.id}/files/${fileId}`, user)).status).toBe(409);
    expect((await send('DELETE', `/api/sessions/${session.id}`, user)).status).toBe(204);
    expect((await send('GET', `/api/sessions/${session.id}/files/${fileId}`, user)).status).toBe(404);
  });
});
