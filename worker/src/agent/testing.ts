import { randomBytes } from 'node:crypto';
import type { Database } from '@agentq/shared/db';
import { withoutRetriedAttempts, type RunEvent } from '@agentq/shared/events';
import { createQueues, enqueue, type ChatRunOpening } from '@agentq/shared/queues';
import { createWorkerRedis } from '@agentq/shared/redis';
import { readRunEvents } from '@agentq/shared/run-stream';
import { createAgent, createChatSession, createModel, createTool, createUser, getRun, isTerminal, startChatRun, startRunInputSchema, transitionRun, type AgentTool, type Run, type StartedRun } from '@agentq/shared/services';
import { openTestDb, randomPrefix, silentLogger, testRedisUrl } from '@agentq/shared/testing';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import type { ScriptLike } from '../../../infra/fake-llm/scripts';
import type { ProcessorMap, WorkerDeps } from '../processor';
import { processors } from '../processors';
import { startWorkers, type WorkerPool } from '../worker';
import { RunControl } from './run-control';

const APP_SECRET = 'agent-test-secret-0123456789';

/**
 * A real worker (BullMQ on the shared Redis under a private prefix, the test PostgreSQL) and a
 * fake LLM, for the run-loop module tests. Only the model is fake.
 */
export type AgentHarness = {
  db: Database;
  deps: WorkerDeps;
  llm: FakeLlm;
  userId: string;
  /** Starts the worker pool (not started by default, so a test can stage a crashed attempt first), optionally with wrapped processors. */
  startWorker: (db?: Database, map?: ProcessorMap) => WorkerPool;
  /** A chat run in a fresh session, with an agent offering exactly `tools`. */
  createRun: (content: string, tools?: AgentTool[]) => Promise<Run>;
  /** createRun, with what the API's job carries for it (a session's first question: its opening). */
  startRun: (content: string, tools?: AgentTool[]) => Promise<StartedRun>;
  enqueueRun: (runId: string, opening?: ChatRunOpening) => Promise<void>;
  waitForEnd: (runId: string, timeoutMs?: number) => Promise<Run>;
  events: (runId: string) => Promise<RunEvent[]>;
  createTool: (input: Omit<Parameters<typeof createTool>[1], 'description' | 'enabled' | 'needsApproval' | 'approvalTimeoutMs' | 'sortOrder' | 'slug' | 'name'> & { needsApproval?: boolean }) => Promise<AgentTool>;
  close: () => Promise<void>;
};

export async function startAgentHarness(script: ScriptLike): Promise<AgentHarness> {
  const database = await openTestDb();
  const db = database.db;
  const prefix = randomPrefix('agent');
  const redis = createWorkerRedis(testRedisUrl());
  const subscriber = createWorkerRedis(testRedisUrl());
  const queues = createQueues(redis, prefix);
  const llm = await startFakeLlm({ script });
  const control = new RunControl(subscriber, prefix);
  const deps: WorkerDeps = { db, redis, queues, logger: silentLogger, allowPrivateNetworks: true, control, config: { prefix, appSecret: APP_SECRET, approvalTimeoutMs: 60_000 } };
  const user = await createUser(db, { email: `agent-${randomBytes(4).toString('hex')}@test.local`, name: 'Agent test', password: 'password-123', role: 'user' });
  const model = await createModel(db, { name: `Fake ${randomBytes(3).toString('hex')}`, baseUrl: llm.url, modelId: 'fake-model' }, APP_SECRET);
  const pools: WorkerPool[] = [];
  const startRun = async (content: string, tools: AgentTool[] = []) => {
    const agent = await createAgent(db, { name: `Agent ${randomBytes(3).toString('hex')}`, modelId: model.id, tools: tools.map((tool) => ({ toolId: tool.id })) });
    const session = await createChatSession(db, user.id, { agentId: agent.id });
    return startChatRun(db, { userId: user.id, session, input: startRunInputSchema.parse({ content }) });
  };
  return {
    db,
    deps,
    llm,
    userId: user.id,
    startWorker: (override, map = processors) => {
      const pool = startWorkers(map, override ? { ...deps, db: override } : deps, { connection: redis, prefix, concurrency: 2 });
      pools.push(pool);
      return pool;
    },
    startRun,
    createRun: async (content, tools = []) => (await startRun(content, tools)).run,
    enqueueRun: async (runId, opening) => {
      await enqueue(queues, 'chatTurns', 'chat-turn', { runId, opening }, { jobId: runId, backoff: { type: 'fixed', delay: 200 } });
    },
    waitForEnd: async (runId, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await getRun(db, runId);
        const events = await readRunEvents(redis, prefix, runId, 0, 10_000);
        if (isTerminal(run.status) && events.at(-1)?.chunk.type === 'finish') return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    events: (runId) => readRunEvents(redis, prefix, runId, 0, 10_000),
    createTool: (input) =>
      createTool(db, { description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, ...input, name: 'Tool', slug: `tool_${randomBytes(4).toString('hex')}` } as Parameters<typeof createTool>[1]),
    close: async () => {
      await Promise.all(pools.map((pool) => pool.close(2000)));
      await control.close();
      await queues.close();
      redis.disconnect();
      await llm.close();
      await database.close();
    },
  };
}

/** What a client rebuilds from the events (abandoned attempts dropped, transient and error parts skipped). */
export async function rebuildMessage(events: RunEvent[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const { chunk } of withoutRetriedAttempts(events)) {
        if ((chunk as { transient?: boolean }).transient || chunk.type === 'error') continue;
        controller.enqueue(chunk as UIMessageChunk);
      }
      controller.close();
    },
  });
  let message: UIMessage = { id: 'rebuilt', role: 'assistant', parts: [] };
  for await (const update of readUIMessageStream({ message, stream })) message = update;
  return message;
}

export function textOf(message: Pick<UIMessage, 'parts'>): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Cancels a run in the database only, as the API's cancel does when the control channel message is lost. */
export async function cancelInDatabase(db: Database, runId: string): Promise<void> {
  await transitionRun(db, runId, 'cancelled', { finishReason: 'cancelled' });
}
