import { chatSessions, llmModels, messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createModel, OPENING_MAX_CHARS, settleChatRun } from '@agentq/shared/services';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;
let stranger: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp('user');
  stranger = await t.signUp('user');
  const model = await createModel(t.db, { name: 'Sessions test model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET);
  // The default is the oldest enabled model, and files running in parallel share the database:
  // dated first, this one is it whichever file creates a model first.
  await t.db.update(llmModels).set({ createdAt: new Date('2000-01-01T00:00:00Z') }).where(eq(llmModels.id, model.id));
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account | null, body?: unknown) =>
  t.app.request(path, { method, headers: account ? account.headers : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

async function newSession(account: Account = owner) {
  const response = await request('POST', '/api/sessions', account, {});
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; title: string };
}

/** Stands in for the worker: the run ends with this answer (stored the way the worker stores it, without a parent). */
async function answer(runId: string, sessionId: string, text: string) {
  await t.db.insert(messages).values({ id: newId('message'), sessionId, role: 'assistant', parts: [{ type: 'text', text }], runId });
  await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
}

async function send(sessionId: string, content: string, account: Account = owner) {
  const response = await request('POST', `/api/sessions/${sessionId}/runs`, account, { content });
  expect(response.status, await response.clone().text()).toBe(202);
  return ((await response.json()) as { runId: string }).runId;
}

type Thread = { title: string; messages: { id: string; role: string; parts: { text: string }[]; versions: { index: number; count: number; ids: string[] } }[]; activeRunId: string | null; activeRunReplyTo: string | null };
async function thread(sessionId: string): Promise<Thread> {
  const response = await request('GET', `/api/sessions/${sessionId}`, owner);
  expect(response.status).toBe(200);
  return response.json();
}
const texts = (detail: Thread) => detail.messages.map((message) => `${message.role}:${message.parts[0]?.text}`);

describe('chat sessions', () => {
  it('reads a session consistently while its run ends: a run shown ended has its answer, else it is still followed live', async () => {
    // The worker ends a run in one statement (status and answer together); a page reading the
    // session meanwhile must never see the run ended without its answer: that page showed
    // "No answer." for a run that had answered, or a run stuck at "running" with nothing following it
    // (also when the active run and the runs' outcomes were read apart, in two statements).
    const inconsistent: string[] = [];
    for (let round = 0; round < 40; round++) {
      const session = await newSession();
      const runId = await send(session.id, `question ${round}`);
      await t.db.update(runs).set({ status: 'running' }).where(eq(runs.id, runId));
      const [run] = await t.db.select().from(runs).where(eq(runs.id, runId));
      const reads = Array.from({ length: 6 }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index));
        const detail = (await (await request('GET', `/api/sessions/${session.id}`, owner)).json()) as Thread & { runs: { id: string; status: string }[] };
        const answered = detail.messages.some((message) => message.role === 'assistant');
        const shownStatus = detail.runs.find((entry) => entry.id === runId)?.status;
        if (detail.activeRunId !== runId && !answered) inconsistent.push(`round ${round}: no active run, no answer, run ${shownStatus}`);
        if (shownStatus !== 'running' && !answered) inconsistent.push(`round ${round}: run ${shownStatus} without its answer`);
        if (detail.activeRunId !== runId && shownStatus === 'running') inconsistent.push(`round ${round}: no active run, but the run's outcome says running`);
      });
      const settle = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const checkpoint = { messages: [], steps: 1 };
        await settleChatRun(t.db, run!, { status: 'succeeded', fields: { finishReason: 'stop', error: null, hitStepLimit: false, steps: 1, usage: {}, cost: null, checkpoint }, parts: [{ type: 'text', text: 'the answer' }] });
      })();
      await Promise.all([...reads, settle]);
    }
    expect(inconsistent).toEqual([]);
  });

  it('names a session from its first question (cleaned, cut at a word), not the raw message', async () => {
    const session = await newSession();
    expect(session.title).toBe('New chat');
    const runId = await send(session.id, '  **How do I** rotate the `API` keys of our staging cluster without downtime? We run three replicas and [[tool:datetime {"op":"now"}]]');
    await answer(runId, session.id, 'Rotate one replica at a time.');
    const detail = await thread(session.id);
    expect(detail.title).toBe('How do I rotate the API keys of our staging…');
    await send(session.id, 'And the database passwords?');
    expect((await thread(session.id)).title).toBe(detail.title);
  });

  it('lists your sessions a page at a time, most recently active first, past 200 and down to the microsecond', async () => {
    const heavy = await t.signUp('user');
    const otherSession = await newSession(stranger);
    // 205 sessions (more than the 200 the list used to stop at): three share each microsecond (the id
    // orders them), the next three are one microsecond later, as a burst of runs leaves them.
    await t.db.execute(sql`
      insert into chat_sessions (id, user_id, title, created_at, updated_at)
      select 'cs_page_' || lpad(i::text, 3, '0'), ${heavy.user.id}, 'Chat ' || i, now(), timestamptz '2026-11-01 12:00:00+00' + (i / 3) * interval '1 microsecond'
      from generate_series(1, 205) as i`);
    const expected = Array.from({ length: 205 }, (_, index) => index + 1)
      .sort((a, b) => Math.floor(b / 3) - Math.floor(a / 3) || b - a)
      .map((i) => `cs_page_${String(i).padStart(3, '0')}`);

    const list = async (query: string) => {
      const response = await request('GET', `/api/sessions${query}`, heavy);
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as { items: { id: string; title: string }[]; nextCursor: string | null };
    };
    const first = await list('');
    expect(first.items).toHaveLength(50);
    const seen = [...first.items.map((session) => session.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await list(`?limit=60&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...page.items.map((session) => session.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
    expect(seen).not.toContain(otherSession.id);

    // A session that becomes active moves to the top; paging on from an older cursor neither repeats
    // nor skips the others.
    const pageOne = await list('?limit=10');
    const moved = expected[100]!;
    await t.db.execute(sql`update chat_sessions set updated_at = now() where id = ${moved}`);
    const rest: string[] = [];
    for (let next = pageOne.nextCursor; next; ) {
      const page = await list(`?limit=200&cursor=${encodeURIComponent(next)}`);
      rest.push(...page.items.map((session) => session.id));
      next = page.nextCursor;
    }
    expect(rest).toEqual(expected.slice(10).filter((id) => id !== moved));
    expect((await list('?limit=1')).items[0]!.id).toBe(moved);

    for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?cursor=not-a-cursor', `?cursor=${encodeURIComponent("1~x' or 1=1")}`]) {
      const bad = await request('GET', `/api/sessions${query}`, heavy);
      expect(bad.status, query).toBe(400);
      expect((await bad.json()).error.code, query).toBe('validation_failed');
    }
    expect((await request('GET', '/api/sessions', null)).status).toBe(401);
  });

  it('renames (then automatic titles leave it alone), validates, and 404s another user', async () => {
    const session = await newSession();
    const renamed = await request('PATCH', `/api/sessions/${session.id}`, owner, { title: '  Key rotation  ' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: session.id, title: 'Key rotation', titleSetByUser: true });
    await send(session.id, 'What is a replica?');
    expect((await thread(session.id)).title).toBe('Key rotation');

    const empty = await request('PATCH', `/api/sessions/${session.id}`, owner, { title: '   ' });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await empty.json())).toContain('Give the chat a name');
    expect((await request('PATCH', `/api/sessions/${session.id}`, owner, { title: 'x'.repeat(201) })).status).toBe(400);
    expect((await request('PATCH', `/api/sessions/${session.id}`, stranger, { title: 'Mine now' })).status).toBe(404);
    expect((await request('PATCH', '/api/sessions/cs_missing', owner, { title: 'x' })).status).toBe(404);
    expect((await request('PATCH', `/api/sessions/${session.id}`, null, { title: 'x' })).status).toBe(401);
  });

  it('deletes a session with its messages and runs (204), refuses while a run is going (409), 404s another user', async () => {
    const session = await newSession();
    const runId = await send(session.id, 'Hello there');
    const busy = await request('DELETE', `/api/sessions/${session.id}`, owner);
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: 'conflict', details: { activeRunId: runId } } });
    await answer(runId, session.id, 'Hi!');

    expect((await request('DELETE', `/api/sessions/${session.id}`, stranger)).status).toBe(404);
    expect((await request('DELETE', `/api/sessions/${session.id}`, owner)).status).toBe(204);
    expect((await request('GET', `/api/sessions/${session.id}`, owner)).status).toBe(404);
    expect(await t.db.select().from(messages).where(eq(messages.sessionId, session.id))).toEqual([]);
    expect(await t.db.select().from(runs).where(eq(runs.id, runId))).toEqual([]);
    expect((await request('DELETE', `/api/sessions/${session.id}`, owner)).status).toBe(404);
  });

  it('regenerates the last answer: both answers stay as versions, switching picks one', async () => {
    const session = await newSession();
    const first = await send(session.id, 'Tell me a joke');
    await answer(first, session.id, 'Joke one');
    const before = await thread(session.id);
    const oldAnswer = before.messages[1]!;
    expect(oldAnswer.versions).toMatchObject({ index: 1, count: 1 });

    const busyFirst = await send(session.id, 'Another?');
    const refused = await request('POST', `/api/sessions/${session.id}/messages/${oldAnswer.id}/regenerate`, owner, {});
    expect(refused.status).toBe(409);
    await answer(busyFirst, session.id, 'Sure');
    // Back to the first answer's branch: regenerate the answer to "Tell me a joke".
    const regenerated = await request('POST', `/api/sessions/${session.id}/messages/${oldAnswer.id}/regenerate`, owner, { enableTools: false });
    expect(regenerated.status).toBe(202);
    const { runId } = (await regenerated.json()) as { runId: string };
    const during = await thread(session.id);
    expect(during).toMatchObject({ activeRunId: runId, activeRunReplyTo: before.messages[0]!.id });
    const [run] = await t.db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ replyToMessageId: before.messages[0]!.id, options: { enableTools: false } });
    // The question is asked again: no new user message.
    expect((await t.db.select().from(messages).where(eq(messages.runId, runId))).length).toBe(0);

    await answer(runId, session.id, 'Joke two');
    const after = await thread(session.id);
    expect(texts(after)).toEqual(['user:Tell me a joke', 'assistant:Joke two']);
    expect(after.messages[1]!.versions).toMatchObject({ index: 2, count: 2 });
    expect(after.messages[1]!.versions.ids[0]).toBe(oldAnswer.id);

    const selected = await request('POST', `/api/sessions/${session.id}/messages/${oldAnswer.id}/select`, owner);
    expect(selected.status).toBe(200);
    const switched = (await selected.json()) as Thread;
    // The old version brings back the branch below it.
    expect(texts(switched)).toEqual(['user:Tell me a joke', 'assistant:Joke one', 'user:Another?', 'assistant:Sure']);
    expect(switched.messages[1]!.versions).toMatchObject({ index: 1, count: 2 });
    expect(texts(await thread(session.id))).toEqual(texts(switched));

    expect((await request('POST', `/api/sessions/${session.id}/messages/${oldAnswer.id}/select`, stranger)).status).toBe(404);
    expect((await request('POST', `/api/sessions/${session.id}/messages/msg_missing/regenerate`, owner, {})).status).toBe(404);
    expect((await request('POST', `/api/sessions/${session.id}/messages/${oldAnswer.id}/regenerate`, stranger, {})).status).toBe(404);
  });

  it('edits a question and resends on a new branch; the old branch stays reachable; the new one continues from it', async () => {
    const session = await newSession();
    const first = await send(session.id, 'What is 2+2?');
    await answer(first, session.id, '4');
    const second = await send(session.id, 'Times three?');
    await answer(second, session.id, '12');
    const original = await thread(session.id);
    const question = original.messages[2]!;

    const edited = await request('POST', `/api/sessions/${session.id}/messages/${question.id}/edit`, owner, { content: 'Times ten?' });
    expect(edited.status).toBe(202);
    const { runId } = (await edited.json()) as { runId: string };
    await answer(runId, session.id, '40');
    const branched = await thread(session.id);
    expect(texts(branched)).toEqual(['user:What is 2+2?', 'assistant:4', 'user:Times ten?', 'assistant:40']);
    expect(branched.messages[2]!.versions).toMatchObject({ index: 2, count: 2, ids: [question.id, branched.messages[2]!.id] });

    // A follow-up continues the shown branch.
    const followUp = await send(session.id, 'And minus one?');
    const [run] = await t.db.select().from(runs).where(eq(runs.id, followUp));
    const [followUpMessage] = await t.db.select().from(messages).where(eq(messages.id, run!.replyToMessageId!));
    expect(followUpMessage!.parentId).toBe(branched.messages[3]!.id);
    await answer(followUp, session.id, '39');

    const back = (await (await request('POST', `/api/sessions/${session.id}/messages/${question.id}/select`, owner)).json()) as Thread;
    expect(texts(back)).toEqual(['user:What is 2+2?', 'assistant:4', 'user:Times three?', 'assistant:12']);

    const notMine = await request('POST', `/api/sessions/${session.id}/messages/${original.messages[1]!.id}/edit`, owner, { content: 'x' });
    expect(notMine.status).toBe(400);
    expect((await request('POST', `/api/sessions/${session.id}/messages/${question.id}/edit`, owner, { content: '  ' })).status).toBe(400);
    expect((await request('POST', `/api/sessions/${session.id}/messages/${question.id}/edit`, stranger, { content: 'x' })).status).toBe(404);
  });

  it('editing the first question starts a new root branch and renames an automatically named chat', async () => {
    const session = await newSession();
    const runId = await send(session.id, 'Plan a trip to Lisbon');
    await answer(runId, session.id, 'Day one: Alfama.');
    const [question] = (await thread(session.id)).messages;
    const edited = await request('POST', `/api/sessions/${session.id}/messages/${question!.id}/edit`, owner, { content: 'Plan a trip to Porto' });
    expect(edited.status).toBe(202);
    const detail = await thread(session.id);
    expect(detail.title).toBe('Plan a trip to Porto');
    expect(detail.messages[0]!.versions).toMatchObject({ index: 2, count: 2 });
    expect(detail.messages).toHaveLength(1);
  });
});

describe('POST /api/sessions/:id/runs: the 202 and the job', () => {
  it('answers 202 before the chat turn is added, then adds it under the run id', async () => {
    const original = t.queues.chatTurns.add.bind(t.queues.chatTurns);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const add = vi.spyOn(t.queues.chatTurns, 'add').mockImplementationOnce(async (...args) => {
      await held;
      return original(...args);
    });
    try {
      const { id } = await newSession();
      // Answered while the add is still held.
      const runId = await send(id, 'Is the answer already on its way?');
      await expect.poll(() => add.mock.calls.length).toBe(1);
      expect(await t.queues.chatTurns.getJob(runId)).toBeUndefined();
      release();
      await expect.poll(async () => (await t.queues.chatTurns.getJob(runId))?.data).toMatchObject({ runId });
    } finally {
      add.mockRestore();
    }
  });

  it("carries a session's first question in its job (the opening), exactly as stored, and no later or long question", async () => {
    const jobData = async (runId: string) => {
      await expect.poll(async () => (await t.queues.chatTurns.getJob(runId))?.data).toBeDefined();
      return (await t.queues.chatTurns.getJob(runId))!.data as { runId: string; opening?: Record<string, unknown> };
    };
    const session = await newSession();
    const first = await send(session.id, 'Where does the opening go?');
    const [stored] = await t.db.select().from(runs).where(eq(runs.id, first));
    const [question] = await t.db.select().from(messages).where(eq(messages.runId, first));
    expect(await jobData(first)).toEqual({
      runId: first,
      opening: {
        userId: stored!.userId,
        sessionId: session.id,
        agentId: stored!.agentId,
        modelId: stored!.modelId,
        options: stored!.options,
        questionId: question!.id,
        question: 'Where does the opening go?',
      },
    });
    expect(question!.parts).toEqual([{ type: 'text', text: 'Where does the opening go?' }]);
    await answer(first, session.id, 'Into the job.');
    // The second question's history is two messages and more: the worker reads it with its claim.
    const second = await send(session.id, 'And the second question?');
    expect(await jobData(second)).toEqual({ runId: second });
    // A first question too long to carry is read with the claim as well.
    const long = await send((await newSession()).id, 'x'.repeat(OPENING_MAX_CHARS + 1));
    expect(await jobData(long)).toEqual({ runId: long });
  });

  it('leaves a run whose add failed after its 202 queued, for the workers\' reconciler to enqueue', async () => {
    const add = vi.spyOn(t.queues.chatTurns, 'add').mockRejectedValueOnce(new Error('Connection is closed.'));
    try {
      const { id } = await newSession();
      const runId = await send(id, 'Will this still run?');
      await expect.poll(() => add.mock.calls.length).toBe(1);
      // Let the failed add's handler run: it must not end the run.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [run] = await t.db.select().from(runs).where(eq(runs.id, runId));
      expect(run).toMatchObject({ status: 'queued', error: null });
      expect(await t.queues.chatTurns.getJob(runId)).toBeUndefined();
    } finally {
      add.mockRestore();
    }
  });
});

describe('GET /api/sessions/search', () => {
  it('finds titles and message text, English stemmed and CJK inside sentences, ranked, highlighted, own sessions only', async () => {
    const searcher = await t.signUp('user');
    const meeting = await newSession(searcher);
    const meetingRun = await send(meeting.id, '本周会议纪要：讨论了项目进度和下周计划', searcher);
    await answer(meetingRun, meeting.id, '好的，我已记录项目进度。');
    const deploy = await newSession(searcher);
    const deployRun = await send(deploy.id, 'Deployment checklist for Friday', searcher);
    await answer(deployRun, deploy.id, 'Check the migrations, then the meetings calendar.');
    const other = await newSession(searcher);
    await answer(await send(other.id, 'Unrelated question about cats', searcher), other.id, 'Cats sleep a lot.');
    // Someone else's chat with the same words is never found.
    const foreign = await newSession(stranger);
    await send(foreign.id, '会议纪要 deployment meeting', stranger);

    const search = async (q: string) => {
      const response = await request('GET', `/api/sessions/search?q=${encodeURIComponent(q)}`, searcher);
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { items: { session: { id: string; title: string }; rank: number; title: { text: string; match: boolean }[]; message: { snippet: { text: string; match: boolean }[] } | null }[] }).items;
    };
    const marked = (segments: { text: string; match: boolean }[]) => segments.filter((segment) => segment.match).map((segment) => segment.text);

    const cjk = await search('会议纪要');
    expect(cjk.map((hit) => hit.session.id)).toEqual([meeting.id]);
    expect(marked(cjk[0]!.title)).toEqual(['会议纪要']);
    const progress = await search('项目进度');
    expect(progress.map((hit) => hit.session.id)).toEqual([meeting.id]);
    expect(marked(progress[0]!.message!.snippet)).toContain('项目进度');

    // English: stemmed ("meeting" finds "meetings"), case-insensitive.
    const english = await search('MEETING');
    expect(english.map((hit) => hit.session.id)).toEqual([deploy.id]);
    expect(marked(english[0]!.message!.snippet)).toEqual(['meetings']);

    // A title match ranks above a message-only match.
    await answer(await send(other.id, 'Any deployment tips?', searcher), other.id, 'Deploy on Tuesdays.');
    const ranked = await search('deployment');
    expect(ranked.map((hit) => hit.session.id)).toEqual([deploy.id, other.id]);
    expect(ranked[0]!.rank).toBeGreaterThan(ranked[1]!.rank);

    expect(await search('zebra')).toEqual([]);
    // LIKE wildcards are literal.
    expect(await search('%')).toEqual([]);
    expect((await request('GET', '/api/sessions/search?q=', searcher)).status).toBe(400);
    expect((await request('GET', `/api/sessions/search?q=${'a'.repeat(201)}`, searcher)).status).toBe(400);
    expect((await request('GET', '/api/sessions/search?q=x', null)).status).toBe(401);
  });
});

describe('GET /api/chat-options', () => {
  it('names the default model (flagged, else the oldest enabled one) and shows no configuration', async () => {
    type Options = { defaultModelId: string | null; models: { id: string; name: string; isDefault: boolean }[] };
    const before = (await (await request('GET', '/api/chat-options', owner)).json()) as Options;
    const oldest = before.models.find((model) => model.name === 'Sessions test model')!;
    expect(before.defaultModelId).toBe(oldest.id);
    expect(before.models.filter((model) => model.isDefault).map((model) => model.id)).toEqual([oldest.id]);

    const flagged = await createModel(t.db, { name: 'Flagged default', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'other', apiKey: 'sk-secret', isDefault: true }, TEST_APP_SECRET);
    const after = await request('GET', '/api/chat-options', owner);
    const body = (await after.json()) as Options;
    expect(body.defaultModelId).toBe(flagged.id);
    expect(body.models.find((model) => model.isDefault)?.name).toBe('Flagged default');
    expect(JSON.stringify(body)).not.toMatch(/sk-secret|127\.0\.0\.1/);
    expect((await request('GET', '/api/chat-options', null)).status).toBe(401);
  });
});

describe('GET /api/sessions/:id/export', () => {
  it('downloads the chat as Markdown or JSON, named after its title; another user gets 404, a bad format 400 (and the session reports each run\'s model, usage and timing)', async () => {
    const session = await newSession();
    const runId = await send(session.id, 'How tall is Everest?');
    await answer(runId, session.id, 'About 8,849 metres.');
    // The session's runs carry what an answer's details show.
    await t.db.update(runs).set({ usage: { inputTokens: 12, outputTokens: 5 }, startedAt: new Date('2026-12-06T10:00:00Z'), finishedAt: new Date('2026-12-06T10:00:02Z') }).where(eq(runs.id, runId));
    const detail = await (await request('GET', `/api/sessions/${session.id}`, owner)).json();
    expect(detail.runs).toEqual([
      expect.objectContaining({ id: runId, status: 'succeeded', modelId: expect.any(String), usage: { inputTokens: 12, outputTokens: 5 }, startedAt: '2026-12-06T10:00:00.000Z', finishedAt: '2026-12-06T10:00:02.000Z' }),
    ]);
    const renamed = await request('PATCH', `/api/sessions/${session.id}`, owner, { title: 'Mountains 山' });
    expect(renamed.status).toBe(200);

    const markdown = await request('GET', `/api/sessions/${session.id}/export`, owner);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('content-disposition')).toBe(`attachment; filename="Mountains-_.md"; filename*=UTF-8''${encodeURIComponent('Mountains-山.md')}`);
    expect(markdown.headers.get('cache-control')).toBe('no-store');
    const text = await markdown.text();
    expect(text).toMatch(/^# Mountains 山\n\n_Exported from agentq on .+; 2 messages\._\n\n## You · .+\n\nHow tall is Everest\?\n\n## Assistant · .+\n\nAbout 8,849 metres\.\n$/);

    const json = await request('GET', `/api/sessions/${session.id}/export?format=json`, owner);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toContain('filename="Mountains-_.json"');
    const document = await json.json();
    expect(document).toMatchObject({ format: 'agentq.chat.v1', session: { id: session.id, title: 'Mountains 山' } });
    expect(document.messages.map((message: { role: string; parts: { text: string }[] }) => [message.role, message.parts[0]!.text])).toEqual([
      ['user', 'How tall is Everest?'],
      ['assistant', 'About 8,849 metres.'],
    ]);

    expect((await request('GET', `/api/sessions/${session.id}/export`, stranger)).status).toBe(404);
    expect((await request('GET', '/api/sessions/ses_missing/export', owner)).status).toBe(404);
    const badFormat = await request('GET', `/api/sessions/${session.id}/export?format=pdf`, owner);
    expect(badFormat.status).toBe(400);
    expect((await badFormat.json()).error.issues[0].path).toEqual(['format']);
    expect((await request('GET', `/api/sessions/${session.id}/export`, null)).status).toBe(401);
  });
});

describe('answer feedback', () => {
  it('rates an answer up or down with a comment, replaces and takes it back; the session shows it; admins list every rating', async () => {
    const session = await newSession();
    const runId = await send(session.id, 'Is the sky green?');
    await answer(runId, session.id, 'Yes, always.');
    const before = (await thread(session.id)) as Thread & { feedback: unknown[] };
    expect(before.feedback).toEqual([]);
    const [question, reply] = before.messages;
    const feedbackPath = (messageId: string) => `/api/sessions/${session.id}/messages/${messageId}/feedback`;

    const down = await request('PUT', feedbackPath(reply!.id), owner, { rating: 'down', comment: '  Wrong: the sky is blue.  ' });
    expect(down.status, await down.clone().text()).toBe(200);
    expect(await down.json()).toMatchObject({ messageId: reply!.id, rating: 'down', comment: 'Wrong: the sky is blue.' });
    const after = (await thread(session.id)) as Thread & { feedback: { messageId: string; rating: string; comment: string | null }[] };
    expect(after.feedback).toEqual([expect.objectContaining({ messageId: reply!.id, rating: 'down', comment: 'Wrong: the sky is blue.' })]);

    // An admin's list: the latest first, with who, the chat, the run and the start of the answer.
    const admin = await t.signUp('admin');
    const listed = await (await request('GET', '/api/admin/feedback?rating=down&limit=200', admin)).json();
    expect(listed.items[0]).toMatchObject({
      messageId: reply!.id,
      rating: 'down',
      comment: 'Wrong: the sky is blue.',
      sessionId: session.id,
      sessionTitle: expect.any(String),
      runId,
      userEmail: owner.email,
      excerpt: 'Yes, always.',
    });
    expect(listed.counts.down).toBeGreaterThanOrEqual(1);
    expect((await request('GET', '/api/admin/feedback', owner)).status).toBe(403);
    // Counted by the run's agent and model, and listed by them.
    const [ratedRun] = await t.db.select({ agentId: runs.agentId, modelId: runs.modelId }).from(runs).where(eq(runs.id, runId));
    const summary = await (await request('GET', '/api/admin/feedback/summary', admin)).json();
    expect(summary.items).toContainEqual(expect.objectContaining({ agentId: ratedRun!.agentId, modelId: ratedRun!.modelId, down: expect.any(Number) }));
    expect((await request('GET', '/api/admin/feedback/summary', owner)).status).toBe(403);
    const ofModel = await (await request('GET', `/api/admin/feedback?modelId=${ratedRun!.modelId}&limit=200`, admin)).json();
    expect(ofModel.items.map((item: { messageId: string }) => item.messageId)).toContain(reply!.id);
    expect((await request('GET', '/api/admin/feedback?agentId=', admin)).status).toBe(400);
    // And by when: a window from an hour ago holds it, one that ended an hour ago does not; a window backwards is a 400.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const recent = await (await request('GET', `/api/admin/feedback?since=${encodeURIComponent(hourAgo)}&limit=200`, admin)).json();
    expect(recent.items.map((item: { messageId: string }) => item.messageId)).toContain(reply!.id);
    const earlier = await (await request('GET', `/api/admin/feedback/summary?until=${encodeURIComponent(hourAgo)}`, admin)).json();
    expect(earlier.items).not.toContainEqual(expect.objectContaining({ agentId: ratedRun!.agentId, modelId: ratedRun!.modelId }));
    const backwards = await request('GET', `/api/admin/feedback/summary?since=${encodeURIComponent(new Date().toISOString())}&until=${encodeURIComponent(hourAgo)}`, admin);
    expect(backwards.status).toBe(400);
    expect((await backwards.json()).error.issues[0].path).toEqual(['until']);

    // Rated again: replaced, the blank comment cleared.
    const up = await request('PUT', feedbackPath(reply!.id), owner, { rating: 'up', comment: ' ' });
    expect(await up.json()).toMatchObject({ rating: 'up', comment: null });
    const upOnly = await (await request('GET', '/api/admin/feedback?rating=up&limit=200', admin)).json();
    expect(upOnly.items.map((item: { messageId: string }) => item.messageId)).toContain(reply!.id);
    const downOnly = await (await request('GET', '/api/admin/feedback?rating=down&limit=200', admin)).json();
    expect(downOnly.items.map((item: { messageId: string }) => item.messageId)).not.toContain(reply!.id);

    // A question cannot be rated; bad input, another user's chat and missing messages change nothing.
    const onQuestion = await request('PUT', feedbackPath(question!.id), owner, { rating: 'up' });
    expect(onQuestion.status).toBe(400);
    expect((await onQuestion.json()).error.message).toBe('Only an answer can be rated');
    for (const body of [{ rating: 'meh' }, {}, { rating: 'up', comment: 'x'.repeat(2001) }]) {
      expect((await request('PUT', feedbackPath(reply!.id), owner, body)).status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect((await request('PUT', feedbackPath(reply!.id), stranger, { rating: 'down' })).status).toBe(404);
    expect((await request('PUT', feedbackPath('msg_missing'), owner, { rating: 'down' })).status).toBe(404);
    expect((await request('DELETE', feedbackPath(reply!.id), stranger)).status).toBe(404);
    expect(((await thread(session.id)) as Thread & { feedback: { rating: string }[] }).feedback.map((item) => item.rating)).toEqual(['up']);

    expect((await request('DELETE', feedbackPath(reply!.id), owner)).status).toBe(204);
    expect((await request('DELETE', feedbackPath(reply!.id), owner)).status).toBe(404);
    expect(((await thread(session.id)) as Thread & { feedback: unknown[] }).feedback).toEqual([]);
  });
});

describe('pinned sessions', () => {
  it('pins a chat to its own list without moving it among the recent ones, and unpins it', async () => {
    const user = await t.signUp('user');
    const older = await newSession(user);
    const newer = await newSession(user);
    const list = async (query: string) =>
      ((await (await request('GET', `/api/sessions${query}`, user)).json()) as { items: { id: string; title: string; pinnedAt: string | null; updatedAt: string }[] }).items;
    const [before] = (await list('')).filter((session) => session.id === older.id);

    const pinned = await request('PATCH', `/api/sessions/${older.id}`, user, { pinned: true });
    expect(pinned.status).toBe(200);
    const body = await pinned.json();
    expect(body.pinnedAt).toEqual(expect.any(String));
    // Pinning is not activity, and leaves the name alone.
    expect(body.updatedAt).toBe(before!.updatedAt);
    expect(body.title).toBe(before!.title);
    expect((await list('?pinned=true')).map((session) => session.id)).toEqual([older.id]);
    expect((await list('?pinned=false')).map((session) => session.id)).toEqual([newer.id]);
    expect((await list('')).map((session) => session.id)).toEqual([newer.id, older.id]);
    // Pinned again: the first pin's time stays.
    expect((await (await request('PATCH', `/api/sessions/${older.id}`, user, { pinned: true })).json()).pinnedAt).toBe(body.pinnedAt);

    // Renamed and unpinned in one request.
    const both = await (await request('PATCH', `/api/sessions/${older.id}`, user, { pinned: false, title: 'Kept for later' })).json();
    expect(both).toMatchObject({ pinnedAt: null, title: 'Kept for later', titleSetByUser: true });
    expect(await list('?pinned=true')).toEqual([]);

    for (const input of [{}, { pinned: 'yes' }, { title: '' }]) {
      const refused = await request('PATCH', `/api/sessions/${older.id}`, user, input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
    }
    expect((await request('GET', '/api/sessions?pinned=maybe', user)).status).toBe(400);
    expect((await request('PATCH', `/api/sessions/${older.id}`, stranger, { pinned: true })).status).toBe(404);
    expect(await list('?pinned=true')).toEqual([]);
  });
});

describe('POST /api/sessions/import', () => {
  type Imported = { items: { id: string; title: string; messages: number; droppedParts: number }[]; skipped: { index: number; title: string }[] };
  const sessionIds = async (account: Account) => ((await (await request('GET', '/api/sessions?limit=200', account)).json()) as { items: { id: string }[] }).items.map((session) => session.id);

  it("brings a chat exported as JSON back as a new chat of the importer's, titled and timed as in the file, and goes on from its last answer", async () => {
    const user = await t.signUp('user');
    const session = await newSession(user);
    const runId = await send(session.id, 'Name a prime above 90', user);
    await answer(runId, session.id, '97');
    await request('PATCH', `/api/sessions/${session.id}`, user, { title: 'Primes' });
    const exported = await (await request('GET', `/api/sessions/${session.id}/export?format=json`, user)).json();

    const response = await request('POST', '/api/sessions/import', user, exported);
    expect(response.status, await response.clone().text()).toBe(201);
    const body = (await response.json()) as Imported;
    expect(body).toEqual({ items: [{ id: expect.any(String), title: 'Primes', messages: 2, droppedParts: 0 }], skipped: [] });
    const importedId = body.items[0]!.id;
    expect(importedId).not.toBe(session.id);

    const detail = await (await request('GET', `/api/sessions/${importedId}`, user)).json();
    expect(detail).toMatchObject({ title: 'Primes', titleSetByUser: true, activeRunId: null, runs: [] });
    expect(detail.messages.map((message: { role: string; parts: { text: string }[]; createdAt: string }) => [message.role, message.parts[0]!.text, message.createdAt])).toEqual(
      exported.messages.map((message: { role: string; parts: { text: string }[]; createdAt: string }) => [message.role, message.parts[0]!.text, message.createdAt]),
    );
    // Its last activity is its last message's, so it sits among the chats by when it was held.
    expect(detail.updatedAt).toBe(exported.messages[1].createdAt);
    expect(await sessionIds(user)).toContain(importedId);
    expect((await request('GET', `/api/sessions/${importedId}`, stranger)).status).toBe(404);
    expect(await sessionIds(stranger)).not.toContain(importedId);

    // The next question follows the imported answer.
    await send(importedId, 'And one below 10?', user);
    const [, lastAnswer, question] = (await (await request('GET', `/api/sessions/${importedId}`, user)).json()).messages as { id: string; parentId: string | null; parts: { text: string }[] }[];
    expect(question).toMatchObject({ parentId: lastAnswer!.id, parts: [{ text: 'And one below 10?' }] });
  });

  it('imports the conversations of a ChatGPT export at once, skipping an empty one', async () => {
    const user = await t.signUp('user');
    const node = (id: string, parent: string | null, role: string, text: string, time: number) => ({
      id,
      parent,
      children: [],
      message: { id, author: { role }, create_time: time, content: { content_type: 'text', parts: [text] }, recipient: 'all', metadata: {} },
    });
    const conversations = [
      { title: 'Tea', create_time: 1_700_000_000, current_node: 'a', mapping: { q: node('q', null, 'user', 'Green or black?', 1_700_000_001), a: node('a', 'q', 'assistant', 'Green.', 1_700_000_002) } },
      { title: 'Empty', create_time: 1_700_000_100, current_node: null, mapping: {} },
    ];
    const response = await request('POST', '/api/sessions/import', user, conversations);
    expect(response.status, await response.clone().text()).toBe(201);
    const body = (await response.json()) as Imported;
    expect(body).toEqual({ items: [{ id: expect.any(String), title: 'Tea', messages: 2, droppedParts: 0 }], skipped: [{ index: 1, title: 'Empty' }] });
    const detail = await (await request('GET', `/api/sessions/${body.items[0]!.id}`, user)).json();
    expect(detail.createdAt).toBe('2023-11-14T22:13:20.000Z');
    expect(detail.messages.map((message: { parts: { text: string }[] }) => message.parts[0]!.text)).toEqual(['Green or black?', 'Green.']);
    expect(await sessionIds(user)).toEqual([body.items[0]!.id]);
  });

  it('refuses a file that is not a chat, or a malformed one, with what is wrong, and stores nothing; 401 without a sign-in', async () => {
    const user = await t.signUp('user');
    const good = { format: 'agentq.chat.v1', messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
    for (const [body, path] of [
      [{ title: 'not a chat' }, [0]],
      [[good, { format: 'agentq.chat.v1', messages: [{ role: 'user', parts: [{ type: 'text' }] }] }], [1, 'messages', 0, 'parts', 0, 'text']],
      [[], []],
    ] as const) {
      const refused = await request('POST', '/api/sessions/import', user, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect((await refused.json()).error.issues[0].path).toEqual(path);
    }
    const notJson = await t.app.request('/api/sessions/import', { method: 'POST', headers: user.headers, body: '{"format":' });
    expect(notJson.status).toBe(400);
    expect(await sessionIds(user)).toEqual([]);
    expect((await request('POST', '/api/sessions/import', null, good)).status).toBe(401);
  });

  it('takes files larger than other requests may be, up to its own limit', async () => {
    const user = await t.signUp('user');
    // Over the test app's 64 KiB limit for other routes, well under the import's 8 MiB.
    const long = 'word '.repeat(40_000);
    const large = { format: 'agentq.chat.v1', session: { title: 'Long' }, messages: [{ role: 'user', parts: [{ type: 'text', text: long }] }] };
    expect((await request('POST', '/api/sessions', user, { title: long.slice(0, 100_000) })).status).toBe(413);
    const accepted = await request('POST', '/api/sessions/import', user, large);
    expect(accepted.status).toBe(201);
    const tooLarge = await request('POST', '/api/sessions/import', user, { ...large, padding: 'x'.repeat(8 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect((await sessionIds(user)).length).toBe(1);
  });
});

describe('all your chats at once', () => {
  it('exports every chat in one file that an import takes back, archives them all, and deletes all but the one whose answer is running', async () => {
    const me = await t.signUp('user');
    const other = await t.signUp('user');
    const answered = await newSession(me);
    await answer(await send(answered.id, 'What is 2 + 2?', me), answered.id, 'Four.');
    await request('PATCH', `/api/sessions/${answered.id}`, me, { pinned: true });
    const archived = await newSession(me);
    await answer(await send(archived.id, 'Old question', me), archived.id, 'Old answer.');
    await request('PATCH', `/api/sessions/${archived.id}`, me, { archived: true });
    const running = await newSession(me);
    await send(running.id, 'Still thinking?', me);
    const othersChat = await newSession(other);
    await answer(await send(othersChat.id, 'Not yours', other), othersChat.id, 'Right.');

    const exported = await request('GET', '/api/sessions/export', me);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="agentq-chats-\d{4}-\d{2}-\d{2}\.json"/);
    const file = (await exported.json()) as { format: string; session: { id: string }; messages: { parts: { text?: string }[] }[] }[];
    expect(file.map((chat) => chat.format)).toEqual(['agentq.chat.v1', 'agentq.chat.v1', 'agentq.chat.v1']);
    expect(file.map((chat) => chat.session.id)).toEqual([answered.id, archived.id, running.id]);
    expect(file.map((chat) => chat.messages.map((message) => message.parts[0]?.text))).toEqual([['What is 2 + 2?', 'Four.'], ['Old question', 'Old answer.'], ['Still thinking?']]);
    expect(JSON.stringify(file)).not.toContain('Not yours');
    expect(await (await request('GET', '/api/sessions/export', await t.signUp('user'))).json()).toEqual([]);
    // The file is an import: another user takes all three chats back.
    const imported = await request('POST', '/api/sessions/import', other, file);
    expect(imported.status).toBe(201);
    expect(((await imported.json()) as { items: { messages: number }[] }).items.map((item) => item.messages)).toEqual([2, 2, 1]);

    const archivedAll = await request('POST', '/api/sessions/archive-all', me);
    expect(await archivedAll.json()).toEqual({ archived: 2 });
    expect(((await (await request('GET', '/api/sessions', me)).json()) as { items: unknown[] }).items).toEqual([]);
    const inArchive = ((await (await request('GET', '/api/sessions?archived=true', me)).json()) as { items: { id: string; pinnedAt: string | null }[] }).items;
    expect(inArchive.map((item) => item.id).sort()).toEqual([answered.id, archived.id, running.id].sort());
    expect(inArchive.every((item) => item.pinnedAt === null)).toBe(true);

    // Deleting everything must be asked for by name; the running answer's chat stays.
    const unasked = await request('DELETE', '/api/sessions', me);
    expect(unasked.status).toBe(400);
    expect((await unasked.json()).error.issues[0].path).toEqual(['all']);
    expect(((await (await request('GET', '/api/sessions?archived=true', me)).json()) as { items: unknown[] }).items).toHaveLength(3);
    const deleted = await request('DELETE', '/api/sessions?all=true', me);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: 2, kept: 1 });
    expect(((await (await request('GET', '/api/sessions?archived=true', me)).json()) as { items: { id: string }[] }).items.map((item) => item.id)).toEqual([running.id]);
    expect((await request('GET', `/api/sessions/${answered.id}`, me)).status).toBe(404);
    expect(await t.db.select({ id: runs.id }).from(runs).where(eq(runs.sessionId, answered.id))).toEqual([]);
    expect((await request('GET', `/api/sessions/${othersChat.id}`, other)).status).toBe(200);
    for (const [method, path] of [['GET', '/api/sessions/export'], ['POST', '/api/sessions/archive-all'], ['DELETE', '/api/sessions?all=true']] as const) {
      expect((await request(method, path, null)).status, path).toBe(401);
    }
  });
});

describe('forking a chat', () => {
  it('copies the conversation down to a message, on whichever branch, into a new chat at the top of the list; this chat stays as it is', async () => {
    const session = await newSession();
    await answer(await send(session.id, 'Plan a trip'), session.id, 'Where to?');
    await answer(await send(session.id, 'Lisbon'), session.id, 'Lisbon in 3 days.');
    await request('PATCH', `/api/sessions/${session.id}`, owner, { title: 'Trips' });
    const before = await thread(session.id);
    const [, firstAnswer, lisbon, lisbonAnswer] = before.messages;
    // Edit the second question: the Lisbon branch is no longer shown, but can still be forked from.
    const edited = await request('POST', `/api/sessions/${session.id}/messages/${lisbon!.id}/edit`, owner, { content: 'Porto' });
    expect(edited.status).toBe(202);
    await answer(((await edited.json()) as { runId: string }).runId, session.id, 'Porto in 2 days.');
    const shown = texts(await thread(session.id));
    expect(shown).toEqual(['user:Plan a trip', 'assistant:Where to?', 'user:Porto', 'assistant:Porto in 2 days.']);

    const fork = async (messageId: string) => {
      const response = await request('POST', `/api/sessions/${session.id}/messages/${messageId}/fork`, owner);
      expect(response.status, await response.clone().text()).toBe(201);
      return (await response.json()) as { id: string; title: string };
    };
    // A fork keeps the chat's tags.
    expect((await request('PUT', `/api/sessions/${session.id}/tags`, owner, { tags: ['travel', 'Porto'] })).status).toBe(200);
    const early = await fork(firstAnswer!.id);
    expect(early.title).toBe('Trips');
    expect(((await (await request('GET', `/api/sessions/${early.id}`, owner)).json()) as { tags: string[] }).tags).toEqual(['Porto', 'travel']);
    expect(texts(await thread(early.id))).toEqual(['user:Plan a trip', 'assistant:Where to?']);
    const hidden = await fork(lisbonAnswer!.id);
    expect(texts(await thread(hidden.id))).toEqual(['user:Plan a trip', 'assistant:Where to?', 'user:Lisbon', 'assistant:Lisbon in 3 days.']);
    // The newest fork heads the list; the original is untouched and goes on by itself.
    const list = ((await (await request('GET', '/api/sessions?limit=3', owner)).json()) as { items: { id: string }[] }).items.map((item) => item.id);
    expect(list.slice(0, 2)).toEqual([hidden.id, early.id]);
    expect(texts(await thread(session.id))).toEqual(shown);
    await answer(await send(early.id, 'Madrid'), early.id, 'Madrid in 4 days.');
    expect(texts(await thread(early.id))).toEqual(['user:Plan a trip', 'assistant:Where to?', 'user:Madrid', 'assistant:Madrid in 4 days.']);
    expect(texts(await thread(session.id))).toEqual(shown);

    // Only the owner forks, and only a message of the chat.
    expect((await request('POST', `/api/sessions/${session.id}/messages/${firstAnswer!.id}/fork`, stranger)).status).toBe(404);
    expect((await request('POST', `/api/sessions/${early.id}/messages/${lisbon!.id}/fork`, owner)).status).toBe(404);
    expect((await request('POST', `/api/sessions/${session.id}/messages/msg_nothing/fork`, owner)).status).toBe(404);
    expect((await request('POST', `/api/sessions/${session.id}/messages/${firstAnswer!.id}/fork`, null)).status).toBe(401);
  });
});

describe('shared links', () => {
  type Share = { id: string; sessionId: string; title: string; messageCount: number; createdAt: string; updatedAt: string };
  type SharedView = { id: string; title: string; sharedBy: string; own: boolean; messages: { role: string; parts: { type: string; text?: string }[] }[] };
  const read = async (shareId: string, account: Account | null) => request('GET', `/api/shared/${shareId}`, account);
  const texts = (view: SharedView) => view.messages.map((message) => message.parts.filter((part) => part.type === 'text').map((part) => part.text).join(''));

  it('shares a chat as it is now with anyone signed in who has the link; later messages stay private until the link is updated', async () => {
    const alice = await t.signUp('user');
    const bob = await t.signUp('user');
    const session = await newSession(alice);
    await answer(await send(session.id, 'What is the capital of Peru?', alice), session.id, 'Lima.');
    await request('PATCH', `/api/sessions/${session.id}`, alice, { title: 'Peru' });

    const made = await request('PUT', `/api/sessions/${session.id}/share`, alice);
    expect(made.status).toBe(201);
    const share = (await made.json()) as Share;
    expect(share).toMatchObject({ id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), sessionId: session.id, title: 'Peru', messageCount: 2 });
    expect(share).not.toHaveProperty('messages');
    expect(await (await request('GET', `/api/sessions/${session.id}/share`, alice)).json()).toEqual(share);

    const seen = await read(share.id, bob);
    expect(seen.status).toBe(200);
    const view = (await seen.json()) as SharedView;
    expect(view).toMatchObject({ id: share.id, title: 'Peru', sharedBy: alice.user.name, own: false });
    expect(texts(view)).toEqual(['What is the capital of Peru?', 'Lima.']);
    // The reader learns the owner's name, nothing else of theirs.
    expect(JSON.stringify(view)).not.toContain(alice.email);
    expect(JSON.stringify(view)).not.toContain(session.id);
    expect(((await (await read(share.id, alice)).json()) as SharedView).own).toBe(true);

    await answer(await send(session.id, 'And of Chile?', alice), session.id, 'Santiago.');
    expect(texts((await (await read(share.id, bob)).json()) as SharedView)).toEqual(['What is the capital of Peru?', 'Lima.']);
    const updated = await request('PUT', `/api/sessions/${session.id}/share`, alice);
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ id: share.id, messageCount: 4 });
    expect(texts((await (await read(share.id, bob)).json()) as SharedView)).toEqual(['What is the capital of Peru?', 'Lima.', 'And of Chile?', 'Santiago.']);

    expect(((await (await request('GET', '/api/shared', alice)).json()) as { items: Share[] }).items.map((item) => [item.id, item.messageCount])).toEqual([[share.id, 4]]);
    expect(((await (await request('GET', '/api/shared', bob)).json()) as { items: Share[] }).items).toEqual([]);

    // Bob saves a copy and goes on with it; it is his, and Alice's chat is untouched.
    const copied = await request('POST', `/api/shared/${share.id}/copy`, bob);
    expect(copied.status).toBe(201);
    const copy = (await copied.json()) as { id: string; title: string };
    expect(copy.title).toBe('Peru');
    const bobsChat = await (await request('GET', `/api/sessions/${copy.id}`, bob)).json();
    expect(bobsChat.messages.map((message: { parts: { text: string }[] }) => message.parts[0]!.text)).toEqual(['What is the capital of Peru?', 'Lima.', 'And of Chile?', 'Santiago.']);
    expect((await request('GET', `/api/sessions/${copy.id}`, alice)).status).toBe(404);
    await send(copy.id, 'And of Bolivia?', bob);
  });

  it('lets only the owner make, update or take a link down; a link taken down, or of a deleted chat, no longer opens', async () => {
    const alice = await t.signUp('user');
    const bob = await t.signUp('user');
    const session = await newSession(alice);
    expect((await request('PUT', `/api/sessions/${session.id}/share`, alice)).status).toBe(400);
    await answer(await send(session.id, 'Hello', alice), session.id, 'Hi.');
    const share = (await (await request('PUT', `/api/sessions/${session.id}/share`, alice)).json()) as Share;

    for (const method of ['GET', 'PUT', 'DELETE']) expect((await request(method, `/api/sessions/${session.id}/share`, bob)).status, method).toBe(404);
    expect((await read(share.id, null)).status).toBe(401);
    expect((await read('not-a-link', bob)).status).toBe(400);
    expect((await read('A'.repeat(22), bob)).status).toBe(404);
    expect((await request('POST', `/api/shared/${'A'.repeat(22)}/copy`, bob)).status).toBe(404);

    expect((await request('DELETE', `/api/sessions/${session.id}/share`, alice)).status).toBe(204);
    expect((await read(share.id, bob)).status).toBe(404);
    expect((await request('DELETE', `/api/sessions/${session.id}/share`, alice)).status).toBe(404);
    expect((await request('GET', `/api/sessions/${session.id}/share`, alice)).status).toBe(404);

    // Shared again: a new link (the old one stays dead); deleting the chat takes it down too.
    const again = (await (await request('PUT', `/api/sessions/${session.id}/share`, alice)).json()) as Share;
    expect(again.id).not.toBe(share.id);
    expect((await read(share.id, bob)).status).toBe(404);
    expect((await request('DELETE', `/api/sessions/${session.id}`, alice)).status).toBe(204);
    expect((await read(again.id, bob)).status).toBe(404);
  });

  it('shares what an import keeps: no approval waiting, no provider data, no files', async () => {
    const alice = await t.signUp('user');
    const session = await newSession(alice);
    const runId = await send(session.id, 'Deploy it', alice);
    await t.db.insert(messages).values({
      id: newId('message'),
      sessionId: session.id,
      role: 'assistant',
      runId,
      parts: [
        { type: 'step-start' },
        { type: 'tool-calc', toolCallId: 'call_1', state: 'output-available', input: { expression: '1+1' }, output: { success: true, text: '2' }, callProviderMetadata: { secret: 'x' } },
        { type: 'tool-deploy', toolCallId: 'call_2', state: 'approval-requested', input: {}, approval: { id: 'apr_1' } },
        { type: 'data-approval-request', data: { approvalId: 'apr_1' } },
        { type: 'file', mediaType: 'image/png', url: 'http://127.0.0.1:9/x.png' },
        { type: 'text', text: 'Waiting for approval.', providerMetadata: { secret: 'y' } },
      ],
    });
    await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
    const share = (await (await request('PUT', `/api/sessions/${session.id}/share`, alice)).json()) as Share;
    const view = (await (await read(share.id, alice)).json()) as SharedView;
    expect(view.messages[1]!.parts).toEqual([
      { type: 'step-start' },
      { type: 'tool-calc', toolCallId: 'call_1', state: 'output-available', input: { expression: '1+1' }, output: { success: true, text: '2' } },
      { type: 'text', text: 'Waiting for approval.' },
    ]);
  });
});

describe('archived sessions', () => {
  it('archives a chat out of the lists, unpinned, without moving it among the recent ones; lists the archived apart and restores one', async () => {
    const user = await t.signUp('user');
    const other = await newSession(user);
    const chat = await newSession(user);
    await request('PATCH', `/api/sessions/${chat.id}`, user, { pinned: true });
    const ids = async (query: string) => ((await (await request('GET', `/api/sessions${query}`, user)).json()) as { items: { id: string }[] }).items.map((session) => session.id);
    const before = await (await request('GET', `/api/sessions/${chat.id}`, user)).json();

    const archived = await request('PATCH', `/api/sessions/${chat.id}`, user, { archived: true });
    expect(archived.status).toBe(200);
    const body = await archived.json();
    expect(body).toMatchObject({ archivedAt: expect.any(String), pinnedAt: null, updatedAt: before.updatedAt });
    expect(await ids('')).toEqual([other.id]);
    expect(await ids('?pinned=true')).toEqual([]);
    expect(await ids('?archived=true')).toEqual([chat.id]);
    // Still the user's, whole: it opens and can be found.
    expect((await request('GET', `/api/sessions/${chat.id}`, user)).status).toBe(200);
    expect((await request('PATCH', `/api/sessions/${chat.id}`, stranger, { archived: false })).status).toBe(404);
    expect((await request('GET', '/api/sessions?archived=maybe', user)).status).toBe(400);

    const restored = await (await request('PATCH', `/api/sessions/${chat.id}`, user, { archived: false })).json();
    expect(restored).toMatchObject({ archivedAt: null, pinnedAt: null });
    expect(await ids('')).toEqual([chat.id, other.id]);
    expect(await ids('?archived=true')).toEqual([]);
  });

  it('keeps a pinned, archived or restored chat above an older one made in the same millisecond', async () => {
    const user = await t.signUp('user');
    const older = await newSession(user);
    const newer = await newSession(user);
    // Within one millisecond, as two quick sends can land: only the microseconds order them.
    await t.db.update(chatSessions).set({ updatedAt: sql`'2026-12-01T10:00:00.000400Z'::timestamptz` }).where(eq(chatSessions.id, older.id));
    await t.db.update(chatSessions).set({ updatedAt: sql`'2026-12-01T10:00:00.000900Z'::timestamptz` }).where(eq(chatSessions.id, newer.id));
    const ids = async () => ((await (await request('GET', '/api/sessions', user)).json()) as { items: { id: string }[] }).items.map((session) => session.id);
    expect(await ids()).toEqual([newer.id, older.id]);
    for (const change of [{ pinned: true }, { pinned: false }, { archived: true }, { archived: false }, { title: 'Renamed' }]) {
      expect((await request('PATCH', `/api/sessions/${newer.id}`, user, change)).status).toBe(200);
    }
    expect(await ids()).toEqual([newer.id, older.id]);
  });
});
