import { messages } from '@agentq/shared/db';
import type { RunEvent } from '@agentq/shared/events';
import { createLogger } from '@agentq/shared/logger';
import { createAgent, createChatSession, createModel, getChatSessionFor, startChatRun, startRunInputSchema, type ChatSession, type LlmModel } from '@agentq/shared/services';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lastUserMessageText, type ChatCompletionRequest, type Turn } from '../../../infra/fake-llm/scripts';
import type { WorkerPool } from '../worker';
import { FOLLOW_UPS_INSTRUCTION, parseFollowUps } from './follow-ups-prompt';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;
let pool: WorkerPool;
let suggestingModel: LlmModel;
let plainModel: LlmModel;
/** What the model answers to the follow-ups prompt. */
let followUpsReply: Turn;
const logs: string[] = [];

const isFollowUpsRequest = (request: ChatCompletionRequest) => (lastUserMessageText(request) ?? '').startsWith(FOLLOW_UPS_INSTRUCTION);
const followUpsRequests = () => harness.llm.requests.filter(isFollowUpsRequest);
const QUESTIONS = ['How long does the ferry take?', 'Which islands are quietest in May?', 'What should I pack?'];

beforeAll(async () => {
  harness = await startAgentHarness((request) => (isFollowUpsRequest(request) ? followUpsReply : { text: `Answer to: ${lastUserMessageText(request)}` }));
  // Everything the worker logs, down to debug: a failed call must not log the conversation.
  harness.deps.logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } });
  suggestingModel = await createModel(harness.db, { name: 'Suggesting model', baseUrl: harness.llm.url, modelId: 'fake-model', suggestsFollowUps: true }, harness.deps.config.appSecret);
  plainModel = await createModel(harness.db, { name: 'Plain model', baseUrl: harness.llm.url, modelId: 'fake-model' }, harness.deps.config.appSecret);
  pool = harness.startWorker();
});

afterAll(async () => {
  await pool?.close(5000);
  await harness?.close();
});

beforeEach(() => {
  followUpsReply = { text: `\`\`\`json\n${JSON.stringify(QUESTIONS)}\n\`\`\`` };
  delete harness.deps.config.followUpsTimeoutMs;
});

async function newChat(model: LlmModel): Promise<ChatSession> {
  const agent = await createAgent(harness.db, { name: `Agent ${Math.random().toString(36).slice(2, 8)}`, modelId: model.id });
  return createChatSession(harness.db, harness.userId, { agentId: agent.id });
}

async function ask(session: ChatSession, content: string) {
  const fresh = await getChatSessionFor(harness.db, session.id, harness.userId);
  const started = await startChatRun(harness.db, { userId: harness.userId, session: fresh, input: startRunInputSchema.parse({ content }) });
  await harness.enqueueRun(started.run.id, started.opening);
  const run = await harness.waitForEnd(started.run.id);
  const [answer] = await harness.db.select({ parts: messages.parts }).from(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
  return { run, events: await harness.events(run.id), parts: (answer?.parts ?? []) as { type: string; data?: unknown }[] };
}

const followUpEvents = (events: RunEvent[]) => events.filter((event) => event.chunk.type === 'data-follow-ups');

describe('follow-up questions suggested by the model', () => {
  it("suggests follow-ups after the answer, sends them before the run's end and stores them with the answer; the next question's context leaves them out", async () => {
    const session = await newChat(suggestingModel);
    const before = followUpsRequests().length;
    const { run, events, parts } = await ask(session, 'Plan a week in the Greek islands');

    expect(run.status).toBe('succeeded');
    const asked = followUpsRequests().slice(before);
    expect(asked).toHaveLength(1);
    // The conversation reaches the model: the question and the answer.
    expect(lastUserMessageText(asked[0]!)).toContain('User: Plan a week in the Greek islands');
    expect(lastUserMessageText(asked[0]!)).toContain('Assistant: Answer to: Plan a week in the Greek islands');
    expect(asked[0]!.stream).toBeFalsy();

    const suggested = followUpEvents(events);
    expect(suggested.map((event) => event.chunk)).toEqual([{ type: 'data-follow-ups', data: { questions: QUESTIONS } }]);
    const finalStatus = events.findLast((event) => event.chunk.type === 'data-run-status')!;
    expect(finalStatus.chunk).toMatchObject({ data: { status: 'succeeded' } });
    expect(suggested[0]!.seq).toBeLessThan(finalStatus.seq);
    const textEnd = events.findLast((event) => event.chunk.type === 'text-end')!;
    expect(textEnd.seq).toBeLessThan(suggested[0]!.seq);
    expect(parts.filter((part) => part.type === 'data-follow-ups')).toEqual([{ type: 'data-follow-ups', data: { questions: QUESTIONS } }]);
    // The follow-up call's tokens are not the answer's (the fake model counts 1 output token per chunk of the answer).
    const answerOnly = await ask(await newChat(plainModel), 'Plan a week in the Greek islands');
    expect(run.usage).toEqual(answerOnly.run.usage);

    // The next answer gets its own; the previous answer's suggestions never reach the model as context.
    followUpsReply = { text: '["Is the water warm?"]' };
    const second = await ask(session, 'And in October?');
    expect(second.parts.filter((part) => part.type === 'data-follow-ups')).toEqual([{ type: 'data-follow-ups', data: { questions: ['Is the water warm?'] } }]);
    const answerRequest = harness.llm.requests.findLast((request) => lastUserMessageText(request) === 'And in October?')!;
    expect(JSON.stringify(answerRequest.messages)).not.toContain('What should I pack?');
  });

  it('offers none when the answer is malformed, the call fails or times out; the run succeeds all the same and the log never quotes the chat', async () => {
    const question = 'Summarise the treaty of Westphalia';
    const cases: { reply: Turn; log: RegExp }[] = [
      { reply: { text: 'Here are some ideas: ask about the war.' }, log: /no usable follow-up questions/ },
      { reply: { text: '{"questions": ["Not a list"]}' }, log: /no usable follow-up questions/ },
      { reply: { text: `[42, "${'x'.repeat(201)}", ""]` }, log: /no usable follow-up questions/ },
      { reply: { error: { status: 500, message: `upstream exploded while reading: ${question}` } }, log: /could not suggest follow-up questions/ },
      { reply: { text: JSON.stringify(QUESTIONS), latency: { timeToFirstTokenMs: 30_000 } }, log: /did not suggest follow-up questions in time/ },
    ];
    harness.deps.config.followUpsTimeoutMs = 700;
    for (const { reply, log } of cases) {
      followUpsReply = reply;
      logs.length = 0;
      const started = performance.now();
      const { run, events, parts } = await ask(await newChat(suggestingModel), question);
      expect(run.status, log.source).toBe('succeeded');
      expect(performance.now() - started).toBeLessThan(5000);
      expect(followUpEvents(events), JSON.stringify(reply)).toHaveLength(0);
      expect(parts.map((part) => part.type)).not.toContain('data-follow-ups');
      expect(parts.some((part) => part.type === 'text')).toBe(true);
      expect(logs.some((line) => log.test(line)), log.source).toBe(true);
      expect(logs.join('\n')).not.toContain('Westphalia');
    }
  });

  it('asks nothing more of a model without "Suggests follow-ups"', async () => {
    const before = harness.llm.requests.length;
    const { run, events, parts } = await ask(await newChat(plainModel), 'What is the capital of Portugal?');
    expect(run.status).toBe('succeeded');
    expect(harness.llm.requests.slice(before)).toHaveLength(1);
    expect(followUpEvents(events)).toHaveLength(0);
    expect(parts.map((part) => part.type)).not.toContain('data-follow-ups');
  });
});

describe('parseFollowUps', () => {
  it('reads a JSON array of questions, fenced or after a preamble, keeping at most 3 usable strings', () => {
    expect(parseFollowUps('["A?", "B?", "C?"]')).toEqual(['A?', 'B?', 'C?']);
    expect(parseFollowUps('Sure! ```json\n["A?",\n "B?"]\n```')).toEqual(['A?', 'B?']);
    expect(parseFollowUps('["  spaced   out? ", 7, "", "B?", "C?", "D?"]')).toEqual(['spaced out?', 'B?', 'C?']);
    expect(parseFollowUps('["太阳为什么是热的？"]')).toEqual(['太阳为什么是热的？']);
    expect(parseFollowUps('no list here')).toBeNull();
    expect(parseFollowUps('[not json]')).toBeNull();
    expect(parseFollowUps('[1, 2]')).toBeNull();
    expect(parseFollowUps('{"questions": ["A?"]}')).toBeNull();
    expect(parseFollowUps(`["${'y'.repeat(201)}"]`)).toBeNull();
  });
});
