import { startPrivateRedis, type PrivateRedis } from '@agentq/shared/testing/redis-server';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, toolResultsSinceLastUserMessage, type ChatCompletionRequest } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startEffectServer, type EffectServer } from './effect-server';
import type { PrivatePostgres } from './private-postgres';
import { startChaosStack, type ChaosStack } from './stack';

/** Everything one scenario runs against: its own Redis, a database in the suite's own PostgreSQL, the product, a fake model, a counted outside world. */
export type World = {
  redis: PrivateRedis;
  pg: PrivatePostgres;
  llm: FakeLlm;
  effects: EffectServer;
  stack: ChaosStack;
  user: ApiClient;
  /** The user's client follows the API across restarts (same port). */
  apiUrl: string;
  close: () => Promise<void>;
};

/** The marker the model puts around its answer, so a doubled answer can be counted in the stored message. */
export const answerMarker = (path: string) => `ANSWER[${path}]`;
/** What the model says before its tool call, in the same step: a crash in the tool must neither lose nor double it. */
export const planMarker = (path: string) => `PLAN[${path}]`;

function lastUserText(request: ChatCompletionRequest): string {
  const last = request.messages.filter((message) => message.role === 'user').at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/**
 * The scripted model: "call <tool> <METHOD> <path>" says "PLAN[<path>] …" and makes one tool call to
 * the effect server in the same step, then answers "ANSWER[<path>] <what the tool said>" once the
 * result is in.
 */
function script(effectsUrl: string) {
  return byLastUserMessage([
    {
      match: /^call (\w+) (\w+) (\S+)/,
      reply: (request) => {
        const [, tool, method, path] = /^call (\w+) (\w+) (\S+)/.exec(lastUserText(request))!;
        const results = toolResultsSinceLastUserMessage(request);
        if (results.length > 0) return { text: `${answerMarker(path!)} the tool said: ${results.map((result) => String(result.content).slice(0, 80)).join(' | ')}` };
        return { text: `${planMarker(path!)} calling the tool. `, toolCalls: [{ name: tool!, input: { url: `${effectsUrl}${path}`, method } }] };
      },
    },
  ]);
}

export type WorldOptions = {
  pg: PrivatePostgres;
  appendonly: boolean;
  workers?: number;
  workerEnv?: Record<string, string>;
  /** How long the gated tool's approvals wait. */
  gateTimeoutMs?: number;
};

/** Starts a scenario's world and signs in a user with the tools `act` (fetch) and `gate` (fetch, needs approval). */
export async function startWorld(options: WorldOptions): Promise<World> {
  const redis = await startPrivateRedis({ appendonly: options.appendonly, appendfsync: 'everysec' });
  const effects = await startEffectServer();
  const llm = await startFakeLlm({ script: script(effects.url), latency: { timeToFirstTokenMs: 100, interTokenMs: 15 }, recordRequests: false });
  let stack: ChaosStack | undefined;
  try {
    stack = await startChaosStack({
      serverUrl: options.pg.serverUrl,
      redisUrl: redis.url,
      workers: options.workers ?? 2,
      workerEnv: {
        WORKER_CONCURRENCY: '8',
        // Fast hand-over after a kill: a dead worker's job moves on after lock + stall interval.
        WORKER_LOCK_DURATION_MS: '5000',
        WORKER_STALLED_INTERVAL_MS: '2000',
        RECONCILE_INTERVAL_MS: '1000',
        ...options.workerEnv,
      },
    });
    const admin = await ApiClient.login(stack.apiUrl, stack.admin);
    await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake' });
    const act = await admin.post('/api/agent-tools', { name: 'Act', slug: 'act', type: 'fetch', config: { parseMode: 'raw', timeout: 60_000 } });
    if (act.status !== 201) throw new Error(`could not create the act tool: ${JSON.stringify(act.body)}`);
    const gate = await admin.post('/api/agent-tools', {
      name: 'Gate',
      slug: 'gate',
      type: 'fetch',
      needsApproval: true,
      approvalTimeoutMs: options.gateTimeoutMs ?? 10 * 60_000,
      config: { parseMode: 'raw' },
    });
    if (gate.status !== 201) throw new Error(`could not create the gate tool: ${JSON.stringify(gate.body)}`);
    const credentials = { email: `chaos-${Date.now().toString(36)}@chaos.local`, password: 'user-password-123' };
    await admin.post('/api/users', { ...credentials, name: 'Chaos user' });
    const user = await ApiClient.login(stack.apiUrl, credentials);
    const started = stack;
    return {
      redis,
      pg: options.pg,
      llm,
      effects,
      stack: started,
      user,
      apiUrl: started.apiUrl,
      close: async () => {
        await started.stop();
        await llm.close();
        await effects.close();
        await redis.dispose();
      },
    };
  } catch (error) {
    await stack?.stop().catch(() => {});
    await llm.close();
    await effects.close();
    await redis.dispose();
    throw error;
  }
}
