import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
});

afterAll(async () => {
  await harness?.close();
});

describe('code tool in a chat run', () => {
  it("runs the program the model wrote and sends its result and console output back in the model's next request", async () => {
    const tool = await harness.createTool({ type: 'code', config: {} });
    const program = "const rows = input.trim().split('\\n').slice(1).map((line) => line.split(','));\nconsole.log('rows', rows.length);\nrows.reduce((sum, [, amount]) => sum + Number(amount), 0)";
    harness.llm.setScript(
      sequence([{ toolCalls: [{ name: tool.slug, id: 'call_sum', input: { code: program, input: 'name,amount\na,1.5\nb,2.25\nc,3\n' } }] }, { text: 'The amounts add up to 6.75.' }], { countFrom: 'last-user-message' }),
    );
    const pool = harness.startWorker();
    const run = await harness.createRun('add up the amounts', [tool]);
    const requestsBefore = harness.llm.requests.length;
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);

    expect(ended).toMatchObject({ status: 'succeeded', steps: 2 });
    expect(harness.llm.requests.length - requestsBefore).toBe(2);
    const toolMessage = harness.llm.requests.at(-1)!.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_sum');
    expect(toolMessage?.content).toEqual(expect.stringContaining(`[${tool.slug} result]`));
    expect(JSON.parse(String(toolMessage!.content).split('\n').slice(1).join('\n'))).toEqual({ result: 6.75, logs: 'rows 3' });
  });

  it('lets the model correct a program that threw: the failure invites another call, and the corrected one answers', async () => {
    const tool = await harness.createTool({ type: 'code', config: {} });
    harness.llm.setScript(
      sequence(
        [
          { toolCalls: [{ name: tool.slug, id: 'call_bad', input: { code: 'input.lenght.toFixed(1)', input: [1, 2, 3] } }] },
          { toolCalls: [{ name: tool.slug, id: 'call_good', input: { code: 'input.length', input: [1, 2, 3] } }] },
          { text: 'There are 3.' },
        ],
        { countFrom: 'last-user-message' },
      ),
    );
    const pool = harness.startWorker();
    const run = await harness.createRun('count them', [tool]);
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);

    expect(ended).toMatchObject({ status: 'succeeded', steps: 3 });
    const toolMessages = harness.llm.requests.at(-1)!.messages.filter((message) => message.role === 'tool');
    const failed = String(toolMessages.find((message) => message.tool_call_id === 'call_bad')?.content);
    expect(failed).toMatch(/TypeError[\s\S]*You may call .+ again with corrected input/);
    expect(failed).not.toContain('Do not call');
    expect(String(toolMessages.find((message) => message.tool_call_id === 'call_good')?.content)).toContain('"result":3');
  });
});
