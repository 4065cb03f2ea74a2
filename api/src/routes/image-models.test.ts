import { chatFiles, llmModels, messages } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { getToolType } from '@agentq/shared/tools';
import { and, eq } from 'drizzle-orm';
import { unzipSync } from 'fflate';
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

describe('a generated picture in copies of its chat', () => {
  type Thread = { messages: { role: string; parts: { type: string; output?: { metadata?: { image?: { sessionId: string; fileId: string } } } }[] }[] };
  const pictureOf = (thread: Thread) => thread.messages.flatMap((message) => message.parts.flatMap((part) => (part.output?.metadata?.image ? [part.output.metadata.image] : [])))[0];

  it('is shown to readers of its shared link, and copied with a saved copy and a fork (kept by the upload sweep)', async () => {
    const painter = (await t.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.generatesImages, true)))[0] ?? (await createPainter('Painter 4'));
    expect(painter.id).toBeTruthy();
    const owner = await t.signUp('user');
    const reader = await t.signUp('user');
    const session = (await (await send('POST', '/api/sessions', owner, { title: 'Doors' })).json()) as { id: string };
    const imageGeneration = getToolType('image-generation');
    const result = await imageGeneration.execute({ prompt: 'a red door' }, imageGeneration.configSchema.parse({}), {
      userId: owner.user.id, runId: 'run_image_copy', sessionId: session.id, toolCallId: 'call_1', idempotencyKey: `run_image_copy:call_1:${session.id}`,
      signal: new AbortController().signal, allowPrivateNetworks: false, services: { db: t.db, appSecret: TEST_APP_SECRET },
    });
    expect(result.success, result.error).toBe(true);
    const { fileId } = result.metadata.image as { fileId: string };
    const questionId = newId('message');
    await t.db.insert(messages).values([
      { id: questionId, sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'Draw a red door' }] },
      { id: newId('message'), sessionId: session.id, role: 'assistant', parentId: questionId, parts: [{ type: 'tool-draw', toolCallId: 'call_1', state: 'output-available', input: { prompt: 'a red door' }, output: result }, { type: 'text', text: 'Here it is.' }] },
    ]);
    const picture = solidPng(promptColour('a red door'));

    // The link's readers get the picture through the link, and only that one.
    const shared = await send('PUT', `/api/sessions/${session.id}/share`, owner);
    expect(shared.status, await shared.clone().text()).toBe(201);
    const share = (await shared.json()) as { id: string };
    const viaLink = await send('GET', `/api/shared/${share.id}/files/${fileId}`, reader);
    expect(viaLink.status).toBe(200);
    expect(Buffer.from(await viaLink.arrayBuffer()).equals(picture)).toBe(true);
    expect((await send('GET', `/api/sessions/${session.id}/files/${fileId}`, reader)).status).toBe(404);
    const stranger = await t.db.insert(chatFiles).values({ id: newId('file'), sessionId: session.id, userId: owner.user.id, name: 'x.png', mediaType: 'image/png', size: picture.length, data: picture, madeByCall: 'call_other' }).returning({ id: chatFiles.id });
    expect((await send('GET', `/api/shared/${share.id}/files/${stranger[0]!.id}`, reader)).status).toBe(404);

    // A saved copy and a fork each get a picture of their own, named by the copied call.
    const copy = (await (await send('POST', `/api/shared/${share.id}/copy`, reader)).json()) as { id: string };
    const assistant = (await t.db.select({ id: messages.id }).from(messages).where(and(eq(messages.sessionId, session.id), eq(messages.role, 'assistant'))))[0]!;
    const fork = (await (await send('POST', `/api/sessions/${session.id}/messages/${assistant.id}/fork`, owner)).json()) as { id: string };
    for (const [chat, account] of [[copy, reader], [fork, owner]] as const) {
      const shown = pictureOf((await (await send('GET', `/api/sessions/${chat.id}`, account)).json()) as Thread);
      expect(shown).toMatchObject({ sessionId: chat.id });
      expect(shown!.fileId).not.toBe(fileId);
      const served = await send('GET', `/api/sessions/${chat.id}/files/${shown!.fileId}`, account);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(picture)).toBe(true);
      const [row] = await t.db.select({ madeByCall: chatFiles.madeByCall }).from(chatFiles).where(eq(chatFiles.id, shown!.fileId));
      expect(row!.madeByCall).toBeTruthy();
    }
    // The owner's archive of every chat holds the picture beside chats.json.
    const archive = unzipSync(new Uint8Array(await (await send('GET', '/api/sessions/export?format=zip', owner)).arrayBuffer()));
    const archived = Object.entries(archive).find(([path]) => path.startsWith(`files/${fileId}/`));
    expect(archived?.[0]).toMatch(/^files\/[^/]+\/generated-image\.png$/);
    expect(Buffer.from(archived![1]).equals(picture)).toBe(true);

    // The copies outlive the original.
    expect((await send('DELETE', `/api/sessions/${session.id}`, owner)).status).toBe(204);
    const kept = pictureOf((await (await send('GET', `/api/sessions/${copy.id}`, reader)).json()) as Thread)!;
    expect((await send('GET', `/api/sessions/${copy.id}/files/${kept.fileId}`, reader)).status).toBe(200);
  });
});
