import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

/**
 * The send path is benchmarked (docs/benchmarks.md): deciding who may use a model or an agent reads
 * the signed-in user's group ids from the auth cache and the groups of models and agents from the
 * config snapshot, so a send costs exactly the statements and Redis commands it cost before groups.
 */
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

afterAll(async () => {
  await t.close();
});

async function measure(work: () => Promise<void>) {
  statements.length = 0;
  redisCommands.length = 0;
  await work();
  // The queue add may follow the 202 (it overlaps the run's WAL flush): let what the send set off finish.
  await new Promise((resolve) => setTimeout(resolve, 250));
  return { statements: [...statements], redisCommands: [...redisCommands] };
}

describe('group access on the send path', () => {
  it('costs a send no statement and no Redis call: one insert and one enqueue, for a user in no group and for a member of a limited model’s group', async () => {
    const admin = await t.signUp('admin');
    const outsider = await t.signUp('user');
    const member = await t.signUp('user');
    const post = (path: string, body: unknown, headers: Record<string, string>) => t.app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = async (response: Response | Promise<Response>) => (await response).json();
    const group = await json(post('/api/groups', { name: 'Cost research' }, admin.headers));
    await t.app.request(`/api/groups/${group.id}/members/${member.user.id}`, { method: 'PUT', headers: admin.headers });
    const openModel = await json(post('/api/models', { name: 'Open model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'open' }, admin.headers));
    const openAgent = await json(post('/api/agents', { name: 'Open agent', modelId: openModel.id }, admin.headers));
    const limitedModel = await json(post('/api/models', { name: 'Limited model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'limited', groupIds: [group.id] }, admin.headers));
    const limitedAgent = await json(post('/api/agents', { name: 'Limited agent', groupIds: [group.id] }, admin.headers));

    /** A chat's first question naming the model and the agent, measured alone (the chat is made first). */
    const firstQuestion = async (headers: Record<string, string>, agentId: string, modelId: string) => {
      const session = await json(post('/api/sessions', { agentId }, headers));
      return measure(async () => {
        expect((await post(`/api/sessions/${session.id}/runs`, { content: 'Hello', modelId, agentId }, headers)).status).toBe(202);
      });
    };
    // Warm: the session cookie (with the user's group ids) and the config snapshot (with the models' and agents' groups) are cached.
    await firstQuestion(outsider.headers, openAgent.id, openModel.id);
    await firstQuestion(member.headers, limitedAgent.id, limitedModel.id);

    for (const cost of [await firstQuestion(outsider.headers, openAgent.id, openModel.id), await firstQuestion(member.headers, limitedAgent.id, limitedModel.id)]) {
      // The run, its question and the chat's title in one statement (chat.ts startRunStatement), then the queue add.
      expect(cost.statements).toHaveLength(1);
      expect(cost.statements[0]).toMatch(/^with "created_run" as \(insert into "runs"/);
      expect(cost.redisCommands).toEqual(['evalsha']);
    }
    // A refusal reads nothing either: it is decided from the same cached copies.
    const refused = await (async () => {
      const session = await json(post('/api/sessions', {}, outsider.headers));
      return measure(async () => {
        expect((await post(`/api/sessions/${session.id}/runs`, { content: 'Hello', modelId: limitedModel.id }, outsider.headers)).status).toBe(403);
      });
    })();
    expect(refused).toEqual({ statements: [], redisCommands: [] });
  });
});
