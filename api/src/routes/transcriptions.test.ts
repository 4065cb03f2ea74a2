import { llmModels } from '@agentq/shared/db';
import { eq } from 'drizzle-orm';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import { freeLoopbackPort } from '@agentq/shared/testing';
import { createTestApp } from '../testing';

// This file alone flags transcription models in the shared test database (the flag is exclusive).
let t: Awaited<ReturnType<typeof createTestApp>>;
let llm: FakeLlm;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

const API_KEY = 'sk-voice-test-key-0123456789';
const WEBM = [0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

beforeAll(async () => {
  t = await createTestApp({ config: { transcriptionRateLimit: { max: 100, windowSeconds: 60 } } });
  llm = await startFakeLlm({ transcription: 'Dictated words.' });
  admin = await t.signUp('admin');
  user = await t.signUp('user');
});

afterAll(async () => {
  await llm.close();
  await t.close();
});

beforeEach(() => {
  llm.transcriptions.length = 0;
  llm.setTranscription('Dictated words.');
});

type Account = typeof admin;

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

function audio(bytes: readonly number[] = WEBM, size = 2048): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(size).fill(7);
  data.set(bytes.slice(0, size));
  return data;
}

function transcribe(account: Account, fields: { file?: Blob; type?: string; language?: string } = {}, app = t.app) {
  const form = new FormData();
  if (fields.file !== null) form.set('file', fields.file ?? new Blob([audio()], { type: fields.type ?? 'audio/webm;codecs=opus' }), 'dictation');
  if (fields.language !== undefined) form.set('language', fields.language);
  return app.request('/api/transcriptions', { method: 'POST', headers: { cookie: account.cookie }, body: form });
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

async function dictationOffered(account: Account) {
  const options = (await (await send('GET', '/api/chat-options', account)).json()) as { dictation: boolean; models: { id: string }[] };
  return options;
}

async function createTranscriber(fields: Record<string, unknown> = {}) {
  const response = await send('POST', '/api/models', admin, { name: 'Whisper', baseUrl: llm.url, modelId: 'whisper-1', apiKey: API_KEY, transcribesSpeech: true, ...fields });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  expect(text).not.toContain(API_KEY);
  return JSON.parse(text) as { id: string; transcribesSpeech: boolean; hasApiKey: boolean };
}

describe('POST /api/transcriptions', () => {
  it('answers 404 naming the fix, and chat-options offers no dictation, while no enabled model transcribes speech', async () => {
    await t.db.update(llmModels).set({ transcribesSpeech: false }).where(eq(llmModels.transcribesSpeech, true));
    const response = await transcribe(user);
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({ code: 'no_transcription_model', message: expect.stringContaining('Transcribes speech') });
    expect((await dictationOffered(user)).dictation).toBe(false);
    expect((await dictationOffered(admin)).dictation).toBe(false);

    // A disabled one does not count.
    const disabled = await createTranscriber({ enabled: false });
    expect((await transcribe(user)).status).toBe(404);
    await send('DELETE', `/api/models/${disabled.id}`, admin);
  });

  it('transcribes a recording through the flagged model: its model id, its key, the language; the text comes back, nothing else', async () => {
    const model = await createTranscriber();
    expect(model).toMatchObject({ transcribesSpeech: true, hasApiKey: true });
    const options = await dictationOffered(user);
    expect(options.dictation).toBe(true);
    // Not a chat model: not in the chat's list.
    expect(options.models.map((candidate) => candidate.id)).not.toContain(model.id);

    const response = await transcribe(user, { language: 'zh' });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({ text: 'Dictated words.' });
    expect(llm.transcriptions).toEqual([
      {
        model: 'whisper-1',
        language: 'zh',
        responseFormat: 'json',
        fileName: 'recording.webm',
        mimeType: 'audio/webm',
        byteCount: 2048,
        leadingBytes: '1a45dfa39f428681',
        authorization: `Bearer ${API_KEY}`,
      },
    ]);
    // Without a language the model detects it.
    expect((await transcribe(user)).status).toBe(200);
    expect(llm.transcriptions[1]?.language).toBeUndefined();
  });

  it('refuses bad input with 4xx and a clear message, before anything goes upstream', async () => {
    const noForm = await send('POST', '/api/transcriptions', user, { file: 'audio' });
    expect(noForm.status).toBe(400);
    expect((await errorOf(noForm)).message).toContain('`file` field of a multipart/form-data body');

    const noFile = new FormData();
    noFile.set('language', 'en');
    const missing = await t.app.request('/api/transcriptions', { method: 'POST', headers: { cookie: user.cookie }, body: noFile });
    expect(missing.status).toBe(400);

    const text = await transcribe(user, { file: new Blob(['hello'], { type: 'text/plain' }) });
    expect(text.status).toBe(415);
    expect((await errorOf(text)).message).toContain("'text/plain' cannot be transcribed");

    const disguised = await transcribe(user, { file: new Blob([audio(PNG)], { type: 'audio/webm' }) });
    expect(disguised.status).toBe(415);
    expect((await errorOf(disguised)).message).toContain('not audio/webm audio');

    const empty = await transcribe(user, { file: new Blob([], { type: 'audio/webm' }) });
    expect(empty.status).toBe(400);
    expect((await errorOf(empty)).message).toContain('empty');

    const language = await transcribe(user, { language: 'English please' });
    expect(language.status).toBe(400);
    expect((await errorOf(language)).message).toContain('ISO-639-1');

    const tooBig = await transcribe(user, { file: new Blob([audio(WEBM, 25 * 1024 * 1024 + 1)], { type: 'audio/webm' }) });
    expect(tooBig.status).toBe(413);
    expect((await errorOf(tooBig)).message).toContain('too long');

    const huge = await transcribe(user, { file: new Blob([audio(WEBM, 26 * 1024 * 1024)], { type: 'audio/webm' }) });
    expect(huge.status).toBe(413);

    expect(llm.transcriptions).toEqual([]);
    const anonymous = await t.app.request('/api/transcriptions', { method: 'POST', body: new FormData() });
    expect(anonymous.status).toBe(401);
  });

  it('answers 502 with what the model said when it fails, is unreachable or answers nonsense; the key never shows', async () => {
    llm.setTranscription(() => ({ error: { status: 401, message: `Incorrect API key provided: ${API_KEY}. Masked: sk-vo****89.` } }));
    const refused = await transcribe(user);
    const body = await refused.text();
    expect(refused.status).toBe(502);
    expect(JSON.parse(body).error).toEqual({ code: 'transcription_failed', message: 'The transcription model failed with HTTP 401: Incorrect API key provided: [redacted]. Masked: [redacted].' });
    expect(body).not.toContain(API_KEY);
    expect(body).not.toContain('sk-vo');

    llm.setTranscription(() => ({ error: { status: 500, message: 'GPU on fire' } }));
    const failed = await transcribe(user);
    expect(failed.status).toBe(502);
    expect((await errorOf(failed)).message).toBe('The transcription model failed with HTTP 500: GPU on fire');

    const [model] = await t.db.select().from(llmModels).where(eq(llmModels.transcribesSpeech, true));
    // A loopback port nothing listens on.
    expect((await send('PUT', `/api/models/${model!.id}`, admin, { baseUrl: `http://127.0.0.1:${await freeLoopbackPort()}/v1` })).status).toBe(200);
    const unreachable = await transcribe(user);
    expect(unreachable.status).toBe(502);
    expect((await errorOf(unreachable)).message).toMatch(/^The transcription model could not be reached \(ECONNREFUSED\)$/);

    // A chat-completions-only server (the fake's 404 for an unknown path stands in for one).
    expect((await send('PUT', `/api/models/${model!.id}`, admin, { baseUrl: `${llm.url}/nowhere` })).status).toBe(200);
    const wrongPath = await transcribe(user);
    expect(wrongPath.status).toBe(502);
    expect((await errorOf(wrongPath)).message).toContain('HTTP 404');

    // A server answering 200 without `text` (not a transcription endpoint).
    const odd = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"ok"}'));
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      expect((await send('PUT', `/api/models/${model!.id}`, admin, { baseUrl: `http://127.0.0.1:${(odd.address() as AddressInfo).port}/v1` })).status).toBe(200);
      const malformed = await transcribe(user);
      expect(malformed.status).toBe(502);
      expect((await errorOf(malformed)).message).toContain('without a `text` field');
    } finally {
      odd.close();
    }

    expect((await send('PUT', `/api/models/${model!.id}`, admin, { baseUrl: llm.url })).status).toBe(200);
    llm.setTranscription('Back again.');
    expect(await (await transcribe(user)).json()).toEqual({ text: 'Back again.' });
  });

  it('serves an admins-only transcription model to admins alone', async () => {
    const [model] = await t.db.select().from(llmModels).where(eq(llmModels.transcribesSpeech, true));
    expect((await send('PUT', `/api/models/${model!.id}`, admin, { adminsOnly: true })).status).toBe(200);
    expect((await dictationOffered(user)).dictation).toBe(false);
    expect((await dictationOffered(admin)).dictation).toBe(true);
    const refused = await transcribe(user);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).message).toContain('administrators only');
    expect((await transcribe(admin)).status).toBe(200);
    expect((await send('PUT', `/api/models/${model!.id}`, admin, { adminsOnly: false })).status).toBe(200);
  });

  it('limits transcriptions per user (429 with Retry-After)', async () => {
    const limited = await createTestApp({ config: { transcriptionRateLimit: { max: 2, windowSeconds: 60 } } });
    try {
      const account = await limited.signUp();
      expect((await transcribe(account, {}, limited.app)).status).toBe(200);
      expect((await transcribe(account, {}, limited.app)).status).toBe(200);
      const third = await transcribe(account, {}, limited.app);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await errorOf(third)).message).toMatch(/^Too many transcriptions: try again in \d+ s$/);
      // Another user has a window of their own.
      expect((await transcribe(await limited.signUp(), {}, limited.app)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('the "Transcribes speech" flag', () => {
  it('is held by one model at a time, never with the default, and such a model never answers a chat', async () => {
    const [first] = await t.db.select().from(llmModels).where(eq(llmModels.transcribesSpeech, true));
    const second = await createTranscriber({ name: 'Whisper 2' });
    expect((await (await send('GET', `/api/models/${first!.id}`, admin)).json()).transcribesSpeech).toBe(false);
    expect((await (await send('GET', `/api/models/${second.id}`, admin)).json()).transcribesSpeech).toBe(true);

    const both = await send('POST', '/api/models', admin, { name: 'Both', baseUrl: llm.url, modelId: 'whisper-1', transcribesSpeech: true, isDefault: true });
    expect(both.status).toBe(400);
    expect(JSON.stringify(await both.json())).toContain('transcribesSpeech');

    const session = (await (await send('POST', '/api/sessions', user, {})).json()) as { id: string };
    const run = await send('POST', `/api/sessions/${session.id}/runs`, user, { content: 'Hello', modelId: second.id });
    expect(run.status).toBe(400);
    expect((await errorOf(run)).message).toContain('transcribes speech');

    // No agent answers with it: it cannot be given one, nor flagged while one uses it.
    const refusedAgent = await send('POST', '/api/agents', admin, { name: `Scribe ${second.id}`, modelId: second.id });
    expect(refusedAgent.status).toBe(400);
    expect((await refusedAgent.json()).error.issues.map((issue: { path: string[] }) => issue.path)).toEqual([['modelId']]);
    const chatModel = (await (await send('POST', '/api/models', admin, { name: 'Chatty', baseUrl: llm.url, modelId: 'chatty' })).json()) as { id: string };
    const agent = await send('POST', '/api/agents', admin, { name: `Talker ${chatModel.id}`, modelId: chatModel.id });
    expect(agent.status).toBe(201);
    const flagged = await send('PUT', `/api/models/${chatModel.id}`, admin, { transcribesSpeech: true });
    expect(flagged.status).toBe(400);
    expect((await flagged.json()).error.message).toContain(`'Talker ${chatModel.id}'`);
    expect((await (await send('GET', `/api/models/${second.id}`, admin)).json()).transcribesSpeech).toBe(true);
    expect((await (await send('GET', `/api/models/${chatModel.id}`, admin)).json()).transcribesSpeech).toBe(false);

    // The admin list never carries the key either.
    expect(await (await send('GET', '/api/models', admin)).text()).not.toContain(API_KEY);
  });
});
