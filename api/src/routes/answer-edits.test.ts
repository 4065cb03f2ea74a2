import { messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createModel, getRun, loadRunHistory } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;
let stranger: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp('user');
  stranger = await t.signUp('user');
  await createModel(t.db, { name: 'Answer edits model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET);
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
type Thread = { messages: { id: string; role: string; parts: { type: string; text?: string; data?: { from: string } }[]; versions: { index: number; count: number; ids: string[] } }[] };
const request = (method: string, path: string, account: Account, body?: unknown) => t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

async function ask(sessionId: string, content: string): Promise<string> {
  const response = await request('POST', `/api/sessions/${sessionId}/runs`, owner, { content });
  expect(response.status, await response.clone().text()).toBe(202);
  return ((await response.json()) as { runId: string }).runId;
}

/** Stands in for the worker: the run ends with this answer, a tool call before its text. */
async function answer(runId: string, sessionId: string, text: string): Promise<string> {
  const id = newId('message');
  const parts = [
    { type: 'reasoning', text: 'Let me add.' },
    { type: 'tool-calculator', toolCallId: 'call_1', state: 'output-available', input: { expression: '2+2' }, output: { success: true, data: 4 } },
    { type: 'text', text },
  ];
  await t.db.insert(messages).values({ id, sessionId, role: 'assistant', parts, runId });
  await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
  return id;
}

const thread = async (sessionId: string): Promise<Thread> => (await request('GET', `/api/sessions/${sessionId}`, owner)).json();
const textOf = (message: Thread['messages'][number]) => message.parts.filter((part) => part.type === 'text').map((part) => part.text).join('');

describe('editing an answer', () => {
  it("makes the edit a new version of the answer, shown at once, keeping the tool calls; the model's answer stays a version away, and the next question reads the edit", async () => {
    const session = (await (await request('POST', '/api/sessions', owner, {})).json()) as { id: string };
    const runId = await ask(session.id, 'What is 2+2?');
    const original = await answer(runId, session.id, 'It is 5.');

    const revised = await request('POST', `/api/sessions/${session.id}/messages/${original}/revise`, owner, { text: '  It is 4.  ' });
    expect(revised.status, await revised.clone().text()).toBe(200);
    const shown = ((await revised.json()) as Thread).messages;
    expect(shown.map((message) => message.role)).toEqual(['user', 'assistant']);
    const edited = shown[1]!;
    expect(edited.id).not.toBe(original);
    expect(textOf(edited)).toBe('It is 4.');
    expect(edited.parts.map((part) => part.type)).toEqual(['tool-calculator', 'text', 'data-edited']);
    expect(edited.parts.at(-1)).toEqual({ type: 'data-edited', data: { from: original } });
    expect(edited.versions).toEqual({ index: 2, count: 2, ids: [original, edited.id] });

    // Editing the edit still names the model's answer; the first edit stays a version too.
    const again = ((await (await request('POST', `/api/sessions/${session.id}/messages/${edited.id}/revise`, owner, { text: 'Four.' })).json()) as Thread).messages[1]!;
    expect(again.parts.at(-1)).toEqual({ type: 'data-edited', data: { from: original } });
    expect(again.versions.count).toBe(3);

    // The model's words are one switch away.
    expect((await request('POST', `/api/sessions/${session.id}/messages/${original}/select`, owner)).status).toBe(200);
    expect(textOf((await thread(session.id)).messages[1]!)).toBe('It is 5.');
    expect((await request('POST', `/api/sessions/${session.id}/messages/${again.id}/select`, owner)).status).toBe(200);

    // The next question follows the edited answer, and its run reads it as the model's.
    const next = await ask(session.id, 'And times 3?');
    expect((await thread(session.id)).messages.map(textOf)).toEqual(['What is 2+2?', 'Four.', 'And times 3?']);
    const history = await loadRunHistory(t.db, await getRun(t.db, next));
    expect(history.map((message) => [message.role, (message.parts as { type: string; text?: string }[]).filter((part) => part.type === 'text').map((part) => part.text).join('')])).toEqual([
      ['user', 'What is 2+2?'],
      ['assistant', 'Four.'],
      ['user', 'And times 3?'],
    ]);

    // While that answer is being written, no edit: 409.
    const busy = await request('POST', `/api/sessions/${session.id}/messages/${again.id}/revise`, owner, { text: 'Twelve?' });
    expect(busy.status).toBe(409);
    expect((await thread(session.id)).messages[1]!.versions.count).toBe(3);
  });

  it('refuses a question (400), empty text (400 on text), and another user or a missing message (404), changing nothing', async () => {
    const session = (await (await request('POST', '/api/sessions', owner, {})).json()) as { id: string };
    const runId = await ask(session.id, 'Hello?');
    const original = await answer(runId, session.id, 'Hi.');
    const question = (await thread(session.id)).messages[0]!.id;

    const onQuestion = await request('POST', `/api/sessions/${session.id}/messages/${question}/revise`, owner, { text: 'No' });
    expect(onQuestion.status).toBe(400);
    const empty = await request('POST', `/api/sessions/${session.id}/messages/${original}/revise`, owner, { text: '   ' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { issues: { path: string[] }[] } }).error.issues.map((issue) => issue.path.join('.'))).toEqual(['text']);
    expect((await request('POST', `/api/sessions/${session.id}/messages/${original}/revise`, stranger, { text: 'Mine now' })).status).toBe(404);
    expect((await request('POST', `/api/sessions/${session.id}/messages/msg_missing/revise`, owner, { text: 'Nothing' })).status).toBe(404);
    expect((await thread(session.id)).messages[1]!.versions.count).toBe(1);
  });
});
