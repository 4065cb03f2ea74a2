import type { RunEvent } from '@agentq/shared/events';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, lastUserMessageText, toolResultsSinceLastUserMessage, type ChatCompletionRequest, type Turn } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

let stack: ProcessStack;
let llm: FakeLlm;
let admin: ApiClient;
let alice: ApiClient;
let bob: ApiClient;
let sql: postgres.Sql;

const DOCUMENT_ID = /ad_[0-9a-z]+_[0-9a-f]+/;

/** The text of every tool result since the user's message, joined, as the model received it. */
function resultsText(request: ChatCompletionRequest): string {
  return toolResultsSinceLastUserMessage(request)
    .map((result) => result.content)
    .join(' | ');
}

/**
 * The model, driven by the user's words; after tool results it echoes them, so the answer shows
 * exactly what the document tool returned.
 * - "remember <fact>": create a memory.
 * - "what do you remember?": list memories, read the first one, answer with it.
 * - "read <id>" / "forget <id>": read or delete that document.
 */
function script() {
  return byLastUserMessage([
    {
      match: /^remember /i,
      reply: (request): Turn => {
        if (toolResultsSinceLastUserMessage(request).length) return { text: `Saved. ${resultsText(request)}` };
        const fact = lastUserMessageText(request)!.replace(/^remember /i, '');
        return { toolCalls: [{ name: 'docs', input: { action: 'create', type: 'memory', title: 'About the user', content: fact, tags: 'profile' } }] };
      },
    },
    {
      match: /^what do you remember/i,
      reply: (request): Turn => {
        const results = toolResultsSinceLastUserMessage(request);
        if (results.length === 0) return { toolCalls: [{ name: 'docs', input: { action: 'list', filterType: 'memory' } }] };
        if (results.length === 1) {
          const id = DOCUMENT_ID.exec(results[0]!.content)?.[0];
          if (!id) return { text: 'I have no memories about you.' };
          return { toolCalls: [{ name: 'docs', input: { action: 'read', id } }] };
        }
        return { text: `From my memory: ${results.at(-1)!.content}` };
      },
    },
    {
      match: /^(read|forget) /i,
      reply: (request): Turn => {
        if (toolResultsSinceLastUserMessage(request).length) return { text: `Tool said: ${resultsText(request)}` };
        const [, verb, id] = /^(read|forget) (\S+)/i.exec(lastUserMessageText(request)!)!;
        return { toolCalls: [{ name: 'docs', input: { action: verb!.toLowerCase() === 'read' ? 'read' : 'delete', id } }] };
      },
    },
  ]);
}

async function chat(client: ApiClient, content: string, sessionId?: string) {
  const session = sessionId ?? (await client.post('/api/sessions', {})).body.id;
  const run = await client.post(`/api/sessions/${session}/runs`, { content });
  expect(run.status).toBe(202);
  return { sessionId: session as string, runId: run.body.runId as string };
}

async function waitForRun(client: ApiClient, runId: string, status = 'succeeded') {
  await expect.poll(async () => (await client.get(`/api/runs/${runId}`)).body.status, { timeout: 20_000, interval: 100 }).toBe(status);
}

function finalText(events: RunEvent[]): string {
  return events
    .filter((event) => event.chunk.type === 'text-delta')
    .map((event) => (event.chunk as { delta: string }).delta)
    .join('');
}

async function answer(client: ApiClient, runId: string): Promise<string> {
  await waitForRun(client, runId);
  return finalText((await client.readEvents(runId)).events);
}

async function signUp(name: string): Promise<ApiClient> {
  const credentials = { email: `${name}-${Date.now().toString(36)}@test.local`, password: `${name}-password-1` };
  expect((await admin.post('/api/users', { ...credentials, name })).status).toBe(201);
  return ApiClient.login(stack.apiUrl, credentials);
}

async function documentRows(id: string) {
  return {
    documents: await sql`select * from agent_documents where id = ${id}`,
    revisions: await sql`select * from agent_document_revisions where document_id = ${id} order by version`,
  };
}

beforeAll(async () => {
  llm = await startFakeLlm({ script: script() });
  stack = await startProcessStack({ workers: 1 });
  sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  expect((await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model', apiKey: 'sk-fake' })).status).toBe(201);
  // No tool-level approval: delete is parked by the document type's own rule (approvalRequiredActions).
  const tool = await admin.post('/api/agent-tools', { name: 'Documents', slug: 'docs', type: 'document' });
  expect(tool.status).toBe(201);
  expect(tool.body).toMatchObject({ needsApproval: false, config: { approvalRequiredActions: ['delete'], tokenBudget: 2000 } });
  alice = await signUp('alice');
  bob = await signUp('bob');
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await stack?.stop();
  await llm?.close();
});

describe('document tool through the real queue', () => {
  let memoryId = '';

  it('session 1: the agent creates a memory, stamped with the session and the run', async () => {
    const { sessionId, runId } = await chat(alice, 'remember my favourite colour is teal');
    const text = await answer(alice, runId);
    expect(text).toMatch(/^Saved\. \[docs result\]/);
    memoryId = DOCUMENT_ID.exec(text)![0];

    const document = await alice.get(`/api/agent-documents/${memoryId}`);
    expect(document.status).toBe(200);
    expect(document.body).toMatchObject({ type: 'memory', title: 'About the user', content: 'my favourite colour is teal', tags: 'profile', version: 1 });
    expect(document.body).not.toHaveProperty('sessionId');
    const [row] = await sql`select session_id, user_id from agent_documents where id = ${memoryId}`;
    expect(row).toMatchObject({ session_id: sessionId });
    const revisions = await alice.get(`/api/agent-documents/${memoryId}/revisions`);
    expect(revisions.body.items).toEqual([expect.objectContaining({ version: 1, createdByRunId: runId, createdByUserId: row!.user_id })]);
  });

  it('session 2 of the same user: the agent lists, reads and answers with the memory', async () => {
    const { sessionId, runId } = await chat(alice, 'what do you remember about me?');
    const [first] = await sql`select session_id from agent_documents where id = ${memoryId}`;
    expect(sessionId).not.toBe(first!.session_id);
    const text = await answer(alice, runId);
    expect(text).toContain('From my memory:');
    expect(text).toContain('my favourite colour is teal');
    // The model saw a list (no content) and then the read.
    const calls = llm.requests
      .filter((request) => lastUserMessageText(request)?.startsWith('what do you remember') && request.messages.some((message) => message.role === 'tool'))
      .flatMap((request) => request.messages.flatMap((message) => message.tool_calls ?? []))
      .map((call) => JSON.parse(call.function.arguments).action);
    expect(calls).toEqual(expect.arrayContaining(['list', 'read']));
  });

  it("another user's agent cannot see or read it", async () => {
    const listed = await chat(bob, 'what do you remember about me?');
    const listText = await answer(bob, listed.runId);
    expect(listText).toBe('I have no memories about you.');
    expect(listText).not.toContain('teal');

    const before = await documentRows(memoryId);
    const read = await chat(bob, `read ${memoryId}`);
    const readText = await answer(bob, read.runId);
    expect(readText).toContain(`Document ${memoryId} not found or no access`);
    expect(readText).not.toContain('teal');
    const deleted = await chat(bob, `forget ${memoryId}`);
    // Bob's delete also waits for Bob's approval; approving it still cannot touch Alice's document.
    let approval: { id: string } | undefined;
    await expect.poll(async () => (approval = (await bob.get(`/api/approvals?runId=${deleted.runId}&status=pending`)).body.items[0]), { timeout: 15_000 }).toBeTruthy();
    expect((await bob.post(`/api/approvals/${approval!.id}`, { decision: 'approve' })).status).toBe(200);
    expect(await answer(bob, deleted.runId)).toContain(`Document ${memoryId} not found or no access`);
    expect((await bob.get(`/api/agent-documents/${memoryId}`)).status).toBe(404);
    expect(await documentRows(memoryId)).toEqual(before);
  });

  it("the agent's delete parks the run for approval; nothing is deleted until it is approved", async () => {
    const { runId } = await chat(alice, `forget ${memoryId}`);
    let approval: { id: string; status: string; toolName: string; toolId: string; input: { action: string; id: string } } | undefined;
    await expect
      .poll(async () => (approval = (await alice.get(`/api/approvals?runId=${runId}`)).body.items[0])?.status, { timeout: 15_000, interval: 50 })
      .toBe('pending');
    expect(approval).toMatchObject({ toolName: 'docs', input: { action: 'delete', id: memoryId } });
    await waitForRun(alice, runId, 'awaiting_approval');
    expect((await alice.get(`/api/agent-documents/${memoryId}`)).status).toBe(200);
    expect(await sql`select id from agent_documents where id = ${memoryId}`).toHaveLength(1);

    expect((await alice.post(`/api/approvals/${approval!.id}`, { decision: 'approve' })).status).toBe(200);
    const text = await answer(alice, runId);
    expect(text).toContain('"deleted":true');
    expect((await alice.get(`/api/agent-documents/${memoryId}`)).status).toBe(404);
    expect(await documentRows(memoryId)).toEqual({ documents: [], revisions: [] });
  });

  it('a denied delete leaves the document in place', async () => {
    const created = await alice.post('/api/agent-documents', { title: 'Keep me', content: 'Important.' });
    const { runId } = await chat(alice, `forget ${created.body.id}`);
    let approval: { id: string } | undefined;
    await expect.poll(async () => (approval = (await alice.get(`/api/approvals?runId=${runId}&status=pending`)).body.items[0]), { timeout: 15_000 }).toBeTruthy();
    expect((await alice.post(`/api/approvals/${approval!.id}`, { decision: 'deny', reason: 'keep it' })).status).toBe(200);
    await waitForRun(alice, runId);
    expect((await alice.get(`/api/agent-documents/${created.body.id}`)).status).toBe(200);
  });
});
