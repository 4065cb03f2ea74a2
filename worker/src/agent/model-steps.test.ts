import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { experimental_streamTextLowMemory as streamTextOnce, isStepCount, jsonSchema, tool, toUIMessageChunk, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import { byLastUserMessage, type Turn } from '../../../infra/fake-llm/scripts';
import { coversMessages, modelSteps } from './model-steps';

/**
 * modelSteps against the streamText it replaces: the same scripted model answers both, and what a
 * run keeps of each (its UI chunks, the response messages it checkpoints, the steps' finish
 * reasons and usage) must be the same.
 */
const cases: Record<string, Turn[]> = {
  text: [{ text: 'Hello there, how are you?' }],
  reasoning: [{ reasoning: 'Think it over.', text: 'The answer is 4.' }],
  'tool then text': [{ text: 'Let me count.', toolCalls: [{ id: 'call_a', name: 'calc', input: { expression: '6 * 7' } }] }, { text: 'It is 42.' }],
  'two tools at once': [
    {
      toolCalls: [
        { id: 'call_slow', name: 'slow', input: { expression: '1' } },
        { id: 'call_b', name: 'calc', input: { expression: '2' } },
      ],
    },
    { text: 'Both done.' },
  ],
  approval: [{ text: 'I need to pay.', toolCalls: [{ id: 'call_pay', name: 'pay', input: { amount: 5 } }] }, { text: 'never asked' }],
  'unknown tool': [{ toolCalls: [{ id: 'call_x', name: 'nope', input: {} }] }, { text: 'Sorry, I will answer directly.' }],
  'failing tool': [{ toolCalls: [{ id: 'call_f', name: 'fails', input: {} }] }, { text: 'It failed.' }],
  'step budget': [{ toolCalls: [{ id: 'call_c', name: 'calc', input: { expression: '1 + 1' } }] }],
  'bad request': [{ error: { status: 400, message: 'context too long' } }],
  'stream error': [{ text: 'one two three four', midStreamError: { afterChunks: 2, mode: 'error-event', message: 'upstream broke' } }],
};

const budgets: Record<string, number> = { 'step budget': 1 };
const inputSchema = jsonSchema({ type: 'object', properties: { expression: { type: 'string' } } });

function toolSet(): ToolSet {
  const text = (value: string) => ({ type: 'text' as const, value });
  return {
    calc: tool({ description: 'Evaluate arithmetic', inputSchema, execute: async () => '42', toModelOutput: ({ output }: { output: string }) => text(`result: ${output}`) }),
    slow: tool({ description: 'Slow', inputSchema, execute: async () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 30)) }),
    pay: tool({ description: 'Pay', inputSchema: jsonSchema({ type: 'object', properties: { amount: { type: 'number' } } }), execute: async () => 'paid' }),
    fails: tool({ description: 'Fails', inputSchema, execute: async (): Promise<string> => Promise.reject(new Error('tool broke')) }),
  };
}

const toolApproval = { pay: () => 'user-approval' as const, calc: () => 'not-applicable' as const, slow: () => 'not-applicable' as const, fails: () => 'not-applicable' as const };

type Observed = { chunks: unknown[]; end?: { finishReason: string; responseMessages: ModelMessage[] }; steps: { finishReason?: string; outputTokens?: number }[]; boundaries: number[] };

async function observe(parts: AsyncIterable<TextStreamPart<ToolSet>>, observed: Observed) {
  for await (const part of parts) {
    const chunk = toUIMessageChunk(part, { sendStart: false, sendFinish: false, sendReasoning: true, onError: (error) => (error instanceof Error ? error.message : String(error)) });
    if (chunk) observed.chunks.push(chunk);
  }
  return observed;
}

function callbacks(observed: Observed) {
  return {
    prepareStep: ({ stepNumber }: { stepNumber: number }) => {
      observed.boundaries.push(stepNumber);
      return undefined;
    },
    onStepEnd: (step: { finishReason?: string; usage?: { outputTokens?: number } }) => {
      observed.steps.push({ finishReason: step.finishReason, outputTokens: step.usage?.outputTokens });
    },
  };
}

/** Ids the SDK generates (approval ids, renamed part ids) differ between two calls: numbered in order of appearance instead. */
function normalized(observed: Observed) {
  const ids = new Map<string, string>();
  const text = JSON.stringify(observed).replace(/aitxt-[A-Za-z0-9]{24}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `generated-${ids.size}`);
    return ids.get(id)!;
  });
  return JSON.parse(text);
}

describe('modelSteps', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({ script: byLastUserMessage(Object.entries(cases).map(([name, reply]) => ({ match: `case: ${name}.`, reply }))) });
  });
  afterAll(async () => {
    await llm.close();
  });

  for (const name of Object.keys(cases)) {
    it(`runs "${name}" as streamText does`, async () => {
      const model = createOpenAICompatible({ name: 'test', baseURL: llm.url, apiKey: 'k', includeUsage: true }).chatModel('fake');
      const messages: ModelMessage[] = [{ role: 'user', content: `case: ${name}.` }];
      const stepBudget = budgets[name] ?? 4;

      const before: Observed = { chunks: [], steps: [], boundaries: [] };
      const result = streamTextOnce({
        model,
        messages,
        tools: toolSet(),
        toolApproval: toolApproval as never,
        stopWhen: isStepCount(stepBudget),
        maxRetries: 0,
        ...callbacks(before),
        onEnd: (end) => {
          before.end = { finishReason: end.finalStep.finishReason, responseMessages: end.responseMessages as ModelMessage[] };
        },
      });
      await observe(result.stream, before);

      const after: Observed = { chunks: [], steps: [], boundaries: [] };
      const parts = modelSteps({
        model,
        messages,
        tools: toolSet(),
        toolApproval,
        stepBudget,
        abortSignal: new AbortController().signal,
        ...callbacks(after),
        onEnd: (end) => {
          after.end = end;
        },
      });
      await observe(parts, after);

      expect(after.chunks.length).toBeGreaterThan(0);
      expect(normalized(after)).toEqual(normalized(before));
    });
  }

  it('retries a model call the provider refused as retryable, as streamText does', async () => {
    let calls = 0;
    const flaky = await startFakeLlm({
      script: () => (++calls === 1 ? { error: { status: 503, message: 'busy' } } : { text: 'Back again.' }),
    });
    try {
      const model = createOpenAICompatible({ name: 'test', baseURL: flaky.url, apiKey: 'k', includeUsage: true, headers: {} }).chatModel('fake');
      const observed: Observed = { chunks: [], steps: [], boundaries: [] };
      await observe(modelSteps({ model, messages: [{ role: 'user', content: 'hi' }], stepBudget: 1, abortSignal: new AbortController().signal, onEnd: (end) => (observed.end = end) }), observed);
      expect(calls).toBe(2);
      expect(observed.end?.finishReason).toBe('stop');
      expect(observed.chunks).toContainEqual(expect.objectContaining({ type: 'text-delta', delta: 'Back ' }));
    } finally {
      await flaky.close();
    }
  }, 10_000);

  it('ends with an abort part, and no end, when its signal fires mid-answer', async () => {
    const slow = await startFakeLlm({ script: () => ({ text: 'one two three four five six', latency: { timeToFirstTokenMs: 0, interTokenMs: 50 } }) });
    try {
      const model = createOpenAICompatible({ name: 'test', baseURL: slow.url, apiKey: 'k' }).chatModel('fake');
      const controller = new AbortController();
      const observed: Observed = { chunks: [], steps: [], boundaries: [] };
      const parts = modelSteps({ model, messages: [{ role: 'user', content: 'hi' }], stepBudget: 1, abortSignal: controller.signal, onEnd: (end) => (observed.end = end) });
      setTimeout(() => controller.abort(new Error('cancelled')), 120);
      await observe(parts, observed);
      expect(observed.chunks.at(-1)).toEqual({ type: 'abort' });
      expect(observed.chunks.filter((chunk) => (chunk as { type: string }).type === 'text-delta').length).toBeLessThan(6);
      expect(observed.end).toBeUndefined();
    } finally {
      await slow.close();
    }
  });

  it('leaves a call that starts by executing approved calls to streamText', () => {
    const approved: ModelMessage[] = [{ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] }];
    expect(coversMessages([{ role: 'user', content: 'hi' }])).toBe(true);
    expect(coversMessages([{ role: 'user', content: 'hi' }, ...approved])).toBe(false);
  });
});
