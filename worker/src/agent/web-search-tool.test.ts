import { createTool, toToolView } from '@agentq/shared/services';
import { FAKE_SEARCH_KEY, startFakeSearchProvider, type FakeSearchProvider } from '@agentq/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;
let provider: FakeSearchProvider;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
  provider = await startFakeSearchProvider();
});

afterAll(async () => {
  await harness?.close();
  await provider?.close();
});

describe('web-search tool in a chat run', () => {
  it("searches with the instance's encrypted key and sends the fenced results back in the model's next request", async () => {
    const tool = await createTool(
      harness.db,
      {
        name: 'Search',
        slug: `search_${Date.now().toString(36)}`,
        description: '',
        enabled: true,
        needsApproval: false,
        approvalTimeoutMs: null,
        sortOrder: 0,
        type: 'web-search',
        config: { provider: 'brave', baseUrl: provider.baseUrls.brave, maxResults: 2 },
        secrets: { apiKey: FAKE_SEARCH_KEY },
      },
      { appSecret: harness.deps.config.appSecret },
    );
    expect(tool.secretsEncrypted).not.toContain(FAKE_SEARCH_KEY);
    expect(JSON.stringify(toToolView(tool, { appSecret: harness.deps.config.appSecret }))).not.toContain(FAKE_SEARCH_KEY);

    harness.llm.setScript(
      sequence([{ toolCalls: [{ name: tool.slug, id: 'call_search', input: { query: 'agentq release notes', count: 5 } }] }, { text: 'agentq 2.0 was released on 1 March 2025.' }], { countFrom: 'last-user-message' }),
    );
    const pool = harness.startWorker();
    const run = await harness.createRun('when was agentq 2.0 released?', [tool]);
    const requestsBefore = harness.llm.requests.length;
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);

    expect(ended).toMatchObject({ status: 'succeeded', steps: 2 });
    // The first model request offered the tool with its description and input schema.
    const offered = harness.llm.requests[requestsBefore]!.tools?.find((candidate) => candidate.function.name === tool.slug);
    expect(offered?.function.description).toMatch(/^Search the web \(Brave Search\) and get up to 2 results/);
    expect(offered?.function.parameters).toMatchObject({ required: ['query'], properties: { query: { type: 'string', maxLength: 400 }, count: { type: 'integer' } } });

    // The provider got the query, the key, and a count capped at maxResults.
    const searched = provider.requests.at(-1)!;
    expect(searched.headers['x-subscription-token']).toBe(FAKE_SEARCH_KEY);
    expect(Object.fromEntries(new URL(searched.url, provider.origin).searchParams)).toMatchObject({ q: 'agentq release notes', count: '2' });

    const toolMessage = harness.llm.requests.at(-1)!.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_search');
    const content = String(toolMessage?.content);
    expect(content).toContain(`[${tool.slug} result HTTP 200]\nContent returned by a web search (Brave Search)`);
    expect(content).toMatch(/<untrusted-content id="[0-9a-f]+">\n\[1\] \[agentq 2\.0 released\]\(https:\/\/example\.com\/news\/agentq-2\)/);
    expect(content).toContain('[2] [agentq documentation](https://docs.example.org/agentq)');
    expect(content).not.toContain('Forum thread');
    expect(content).not.toContain(FAKE_SEARCH_KEY);
  });
});
