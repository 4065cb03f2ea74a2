import { chatSessions, messages } from '@agentq/shared/db';
import type { RunEvent } from '@agentq/shared/events';
import { createLogger } from '@agentq/shared/logger';
import {
  createAgent,
  createChatSession,
  createModel,
  getChatSessionFor,
  regenerateAnswer,
  runOptionsSchema,
  startChatRun,
  startRunInputSchema,
  suggestSessionTitle,
  updateChatSession,
  type ChatSession,
  type LlmModel,
} from '@agentq/shared/services';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lastUserMessageText, type ChatCompletionRequest, type Turn } from '../../../infra/fake-llm/scripts';
import type { WorkerPool } from '../worker';
import { CHAT_TITLE_INSTRUCTION } from './chat-title-prompt';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;
let pool: WorkerPool;
let namingModel: LlmModel;
/** What the model answers to the title prompt (a script, to hold it until a test lets it go). */
let titleReply: Turn | ((request: ChatCompletionRequest) => Promise<Turn>);
const logs: string[] = [];

const isTitleRequest = (request: ChatCompletionRequest) => (lastUserMessageText(request) ?? '').startsWith(CHAT_TITLE_INSTRUCTION);
const titleRequests = () => harness.llm.requests.filter(isTitleRequest);

beforeAll(async () => {
  harness = await startAgentHarness((request) => {
    if (!isTitleRequest(request)) return { text: 'Here is the answer.' };
    return typeof titleReply === 'function' ? titleReply(request) : titleReply;
  });
  // Everything the worker logs, down to debug: a failed title must not log the question.
  harness.deps.logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } });
  namingModel = await createModel(harness.db, { name: 'Naming model', baseUrl: harness.llm.url, modelId: 'fake-model', namesChats: true }, harness.deps.config.appSecret);
  pool = harness.startWorker();
});

afterAll(async () => {
  await pool?.close(5000);
  await harness?.close();
});

beforeEach(() => {
  titleReply = { text: 'A Title From The Model' };
  delete harness.deps.config.chatTitleTimeoutMs;
});

/** A new chat (optionally named by its user) whose agent uses `model`. */
async function newChat(model: LlmModel = namingModel, title?: string): Promise<ChatSession> {
  const agent = await createAgent(harness.db, { name: `Agent ${Math.random().toString(36).slice(2, 8)}`, modelId: model.id });
  return createChatSession(harness.db, harness.userId, { agentId: agent.id, ...(title && { title }) });
}

/** Asks `content` in the session and waits for the run's end (a first question goes with its opening, as the API sends it). */
async function ask(session: ChatSession, content: string) {
  const started = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content }) });
  await harness.enqueueRun(started.run.id, started.opening);
  const run = await harness.waitForEnd(started.run.id);
  return { run, events: await harness.events(run.id) };
}

async function titleOf(sessionId: string) {
  const [row] = await harness.db.select({ title: chatSessions.title, titleSetByUser: chatSessions.titleSetByUser }).from(chatSessions).where(eq(chatSessions.id, sessionId));
  return row!;
}

const titleEvents = (events: RunEvent[]) => events.filter((event) => event.chunk.type === 'data-session-title');

describe('chat titles named by the model', () => {
  it("names a chat from its first question beside the first answer, and sends the title before the run's end even when the answer is quicker", async () => {
    // The answer is immediate; the title comes 400 ms later, quoted and with a full stop.
    titleReply = { text: '"Planning A Lisbon Offsite."', latency: { timeToFirstTokenMs: 400 } };
    const session = await newChat();
    const question = 'Help me plan our quarterly offsite in Lisbon for twelve people';
    const before = titleRequests().length;
    const { run, events } = await ask(session, question);

    expect(run.status).toBe('succeeded');
    const asked = titleRequests().slice(before);
    expect(asked).toHaveLength(1);
    expect(lastUserMessageText(asked[0]!)).toContain(question);
    expect(asked[0]!.stream).toBeFalsy();
    expect(await titleOf(session.id)).toEqual({ title: 'Planning A Lisbon Offsite', titleSetByUser: false });

    const titles = titleEvents(events);
    expect(titles.map((event) => event.chunk)).toEqual([{ type: 'data-session-title', data: { sessionId: session.id, title: 'Planning A Lisbon Offsite' }, transient: true }]);
    const finalStatus = events.findLast((event) => event.chunk.type === 'data-run-status')!;
    expect(finalStatus.chunk).toMatchObject({ data: { status: 'succeeded' } });
    expect(titles[0]!.seq).toBeLessThan(finalStatus.seq);
    // The title is the chat's, not the answer's: the stored message has no part for it.
    const [answer] = await harness.db.select({ parts: messages.parts }).from(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
    expect(JSON.stringify(answer!.parts)).not.toContain('Lisbon Offsite');
    // The title call's tokens are not the answer's.
    expect(run.usage).toMatchObject({ outputTokens: expect.any(Number) });
  });

  it('asks nothing more of a model without "Names chats": the chat keeps the title its question gave it', async () => {
    const before = harness.llm.requests.length;
    const question = 'What is the tallest mountain in Europe? Asking for a trip';
    const { run, events } = await harness.startRun(question).then(async (started) => {
      await harness.enqueueRun(started.run.id, started.opening);
      const ended = await harness.waitForEnd(started.run.id);
      return { run: ended, events: await harness.events(ended.id) };
    });
    expect(run.status).toBe('succeeded');
    expect(harness.llm.requests.slice(before)).toHaveLength(1);
    expect(titleRequests().filter((request) => (lastUserMessageText(request) ?? '').includes(question))).toHaveLength(0);
    expect((await titleOf(run.sessionId!)).title).toBe(suggestSessionTitle(question));
    expect(titleEvents(events)).toHaveLength(0);
  });

  it('names a chat once: neither a second question nor a regenerated first answer asks again', async () => {
    const session = await newChat();
    await ask(session, 'Explain how tides work');
    expect((await titleOf(session.id)).title).toBe('A Title From The Model');
    const before = titleRequests().length;

    titleReply = { text: 'Some Other Title' };
    const second = await ask(await getChatSessionFor(harness.db, session.id, harness.userId), 'And why are there two a day?');
    expect(second.run.status).toBe('succeeded');
    const [firstQuestion] = await harness.db.select({ id: messages.id }).from(messages).where(and(eq(messages.sessionId, session.id), eq(messages.role, 'user'))).orderBy(messages.createdAt).limit(1);
    const regenerated = await regenerateAnswer(harness.db, { userId: harness.userId, session: await getChatSessionFor(harness.db, session.id, harness.userId), messageId: firstQuestion!.id, input: runOptionsSchema.parse({}) });
    await harness.enqueueRun(regenerated.run.id);
    await harness.waitForEnd(regenerated.run.id);

    expect(titleRequests().length).toBe(before);
    expect((await titleOf(session.id)).title).toBe('A Title From The Model');
    expect(titleEvents(second.events)).toHaveLength(0);
    expect(titleEvents(await harness.events(regenerated.run.id))).toHaveLength(0);
  });

  it("keeps the user's name: one given while the title call ran, and one given before the first question (no call at all)", async () => {
    const session = await newChat();
    let asked!: () => void;
    const titleAsked = new Promise<void>((resolve) => (asked = resolve));
    let answerTitle!: () => void;
    const renamed = new Promise<void>((resolve) => (answerTitle = resolve));
    titleReply = async () => {
      asked();
      await renamed;
      return { text: 'The Model Wanted This' };
    };
    const asking = ask(session, 'Compare three note-taking apps');
    await titleAsked;
    await updateChatSession(harness.db, await getChatSessionFor(harness.db, session.id, harness.userId), { title: 'My notes research' });
    answerTitle();
    const { run, events } = await asking;
    expect(run.status).toBe('succeeded');
    expect(await titleOf(session.id)).toEqual({ title: 'My notes research', titleSetByUser: true });
    expect(titleEvents(events)).toHaveLength(0);

    titleReply = { text: 'Never Asked' };
    const before = titleRequests().length;
    const named = await newChat(namingModel, 'Named up front');
    const second = await ask(named, 'Compare three calendar apps');
    expect(second.run.status).toBe('succeeded');
    expect(titleRequests().length).toBe(before);
    expect((await titleOf(named.id)).title).toBe('Named up front');
  });

  it('keeps the derived title when the title call fails, answers nothing usable or times out; the run succeeds all the same', async () => {
    const question = 'Summarise the causes of the first world war';
    const cases: { reply: Turn; log: RegExp }[] = [
      { reply: { error: { status: 500, message: `upstream exploded while reading: ${question}` } }, log: /could not name the chat/ },
      { reply: { text: ' "." \n' }, log: /answered no title/ },
      { reply: { text: 'Too Late', latency: { timeToFirstTokenMs: 30_000 } }, log: /did not name the chat in time/ },
    ];
    harness.deps.config.chatTitleTimeoutMs = 700;
    for (const { reply, log } of cases) {
      titleReply = reply;
      logs.length = 0;
      const session = await newChat();
      const started = performance.now();
      const { run, events } = await ask(session, question);
      expect(run.status, log.source).toBe('succeeded');
      expect(performance.now() - started).toBeLessThan(5000);
      expect(await titleOf(session.id)).toEqual({ title: suggestSessionTitle(question), titleSetByUser: false });
      expect(titleEvents(events)).toHaveLength(0);
      expect(logs.some((line) => log.test(line)), log.source).toBe(true);
      expect(logs.join('\n')).not.toContain('first world war');
    }
  });
});
