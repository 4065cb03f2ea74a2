import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

/** POST /api/sessions/:id/runs with `knowledgeBaseIds`: the bases a user picked with `#` for one question. */
let t: Awaited<ReturnType<typeof createTestApp>>;
const statements: string[] = [];
const redisCommands: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ configCache: true, onStatement: (statement) => statements.push(statement) });
  const sendCommand = t.redis.sendCommand.bind(t.redis);
  t.redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    redisCommands.push(command.name);
    return (sendCommand as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof t.redis.sendCommand;
});
afterAll(() => t.close());

type Account = Awaited<ReturnType<typeof t.signUp>>;
type Issue = { path: (string | number)[]; message: string };
type Message = { role: string; parts: { type: string; data?: unknown }[] };

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });
const json = async <T = Record<string, unknown>>(response: Response | Promise<Response>) => (await (await response).json()) as T;
const unique = () => Math.random().toString(36).slice(2, 8);

async function measure(work: () => Promise<void>) {
  statements.length = 0;
  redisCommands.length = 0;
  await work();
  await new Promise((resolve) => setTimeout(resolve, 250));
  return { statements: [...statements], redisCommands: [...redisCommands] };
}

let admin: Account;
let user: Account;
let stranger: Account;
let modelId: string;
const bases: Record<'own' | 'shared' | 'adminPrivate' | 'strangers', { id: string; name: string }> = {} as never;

beforeAll(async () => {
  admin = await t.signUp('admin');
  user = await t.signUp('user');
  stranger = await t.signUp('user');
  modelId = (await json<{ id: string }>(send('POST', '/api/models', admin, { name: `Model ${unique()}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' }))).id;
  const base = async (owner: Account, name: string) => {
    const { id } = await json<{ id: string }>(send('POST', '/api/knowledge', owner, { name }));
    return { id, name };
  };
  bases.own = await base(user, `My notes ${unique()}`);
  bases.shared = await base(admin, `Handbook ${unique()}`);
  bases.adminPrivate = await base(admin, `Admin drafts ${unique()}`);
  bases.strangers = await base(stranger, `Stranger diary ${unique()}`);
  expect((await send('PATCH', `/api/knowledge/${bases.shared.id}`, admin, { shared: true })).status).toBe(200);
});

async function ask(account: Account, body: Record<string, unknown>) {
  const session = await json<{ id: string }>(send('POST', '/api/sessions', account, {}));
  const response = await send('POST', `/api/sessions/${session.id}/runs`, account, { content: 'What do my notes say?', modelId, ...body });
  return { session, response };
}

describe('knowledge bases chosen for a message', () => {
  it('accepts the user’s own base and one shared with them, stores them in the run’s options and shows them on the question after reload', async () => {
    const { session, response } = await ask(user, { knowledgeBaseIds: [bases.own.id, bases.shared.id] });
    expect(response.status).toBe(202);
    const { runId } = await json<{ runId: string }>(response);
    const run = await json<{ options: Record<string, unknown> }>(send('GET', `/api/runs/${runId}`, user));
    expect(run.options).toMatchObject({ knowledgeBaseIds: [bases.own.id, bases.shared.id] });

    const detail = await json<{ messages: Message[] }>(send('GET', `/api/sessions/${session.id}`, user));
    const question = detail.messages.find((message) => message.role === 'user')!;
    expect(question.parts).toContainEqual({ type: 'data-knowledge-bases', data: { bases: [bases.own, bases.shared] } });
  });

  it('refuses a base the user cannot read (another user’s, an admin’s unshared) or that does not exist, alike, naming only the ids sent; nothing is stored', async () => {
    for (const id of [bases.strangers.id, bases.adminPrivate.id, 'kb_missing']) {
      const { session, response } = await ask(user, { knowledgeBaseIds: [bases.own.id, id] });
      expect(response.status).toBe(400);
      const body = await json<{ error: { issues: Issue[] } }>(response);
      expect(body.error.issues).toEqual([{ path: ['knowledgeBaseIds', 1], message: `No knowledge base '${id}' that you can read` }]);
      // Never its name: the user learns nothing about a base they cannot read.
      expect(JSON.stringify(body)).not.toMatch(/Stranger diary|Admin drafts/);
      const detail = await json<{ messages: Message[] }>(send('GET', `/api/sessions/${session.id}`, user));
      expect(detail.messages).toEqual([]);
    }
    // The owner of the stranger's base may choose it.
    expect((await ask(stranger, { knowledgeBaseIds: [bases.strangers.id] })).response.status).toBe(202);
  });

  it('refuses malformed choices with issues: not a list, empty, more than five, a repeated id, a non-string', async () => {
    const cases: [unknown, RegExp][] = [
      ['kb_1', /list|array/i],
      [[], /at least one/],
      [['a', 'b', 'c', 'd', 'e', 'f'], /at most 5/],
      [[bases.own.id, bases.own.id], /each knowledge base once/],
      [[42], /text|string/i],
      [[''], /required|too small|at least/i],
    ];
    for (const [knowledgeBaseIds, message] of cases) {
      const { response } = await ask(user, { knowledgeBaseIds });
      expect(response.status, JSON.stringify(knowledgeBaseIds)).toBe(400);
      const issues = (await json<{ error: { issues: Issue[] } }>(response)).error.issues;
      expect(issues[0]!.path[0]).toBe('knowledgeBaseIds');
      expect(issues.map((issue) => issue.message).join(' ')).toMatch(message);
    }
  });

  it('costs a send without chosen bases nothing new, and one statement when it names some', async () => {
    const firstQuestion = async (body: Record<string, unknown>) => {
      const session = await json<{ id: string }>(send('POST', '/api/sessions', user, {}));
      return measure(async () => {
        expect((await send('POST', `/api/sessions/${session.id}/runs`, user, { content: 'Hello', modelId, ...body })).status).toBe(202);
      });
    };
    await firstQuestion({}); // warm the caches
    const plain = await firstQuestion({});
    expect(plain.statements).toHaveLength(1);
    expect(plain.statements[0]).toMatch(/^with "created_run" as \(insert into "runs"/);
    expect(plain.redisCommands).toEqual(['evalsha']);

    const chosen = await firstQuestion({ knowledgeBaseIds: [bases.own.id, bases.shared.id] });
    expect(chosen.statements).toHaveLength(2);
    expect(chosen.statements[0]).toMatch(/^select "knowledge_bases"\."id", "knowledge_bases"\."name"/);
    expect(chosen.redisCommands).toEqual(['evalsha']);
  });
});
