import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  generateText,
  isStepCount,
  streamText,
  tool,
  type ModelMessage,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEMO_FOLLOW_UPS, demoModel, parseDirectives } from './demo-model';
import { byLastUserMessage, fillerText, sequence, type Turn } from './scripts';
import { startFakeLlm, type FakeLlm } from './server';
import { demoTranscription } from './transcriptions';

let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
});

afterAll(async () => {
  await llm.close();
});

beforeEach(() => {
  llm.requests.length = 0;
  llm.setLatency({});
});

function model(modelId = 'fake-model') {
  return createOpenAICompatible({ name: 'fake', baseURL: llm.url, apiKey: 'test-key', includeUsage: true }).chatModel(modelId);
}

const tools = {
  add: tool({
    description: 'Add two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => ({ sum: a + b }),
  }),
  weather: tool({
    description: 'Weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, forecast: `sunny in ${city}` }),
  }),
};

/** Runs streamText to the end and returns every stream part, with arrival times. */
async function run(prompt: string | ModelMessage[]) {
  const startedAt = performance.now();
  const result = streamText({
    model: model(),
    messages: typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt,
    tools,
    stopWhen: isStepCount(5),
    maxRetries: 0,
    onError: () => {},
  });
  const parts: Array<TextStreamPart<ToolSet> & { at: number }> = [];
  let thrown: unknown;
  try {
    for await (const part of result.stream) parts.push({ ...part, at: performance.now() - startedAt });
  } catch (error) {
    // A body that breaks off mid-stream rejects the stream itself rather than yielding an error part.
    thrown = error;
  }
  const ofType = <T extends TextStreamPart<ToolSet>['type']>(type: T) =>
    parts.filter((part): part is Extract<TextStreamPart<ToolSet>, { type: T }> & { at: number } => part.type === type);
  return {
    parts,
    ofType,
    thrown,
    text: ofType('text-delta').map((part) => part.text).join(''),
    reasoning: ofType('reasoning-delta').map((part) => part.text).join(''),
  };
}

describe('fake LLM through the real AI SDK', () => {
  it('streams text deltas and reports usage', async () => {
    llm.setScript([{ text: 'Hello there, dear friend.' }]);
    const { ofType, text } = await run('hi');
    expect(ofType('text-delta').length).toBe(4);
    expect(text).toBe('Hello there, dear friend.');
    const [finish] = ofType('finish');
    expect(finish?.finishReason).toBe('stop');
    expect(finish?.totalUsage.outputTokens).toBe(4);
    expect(finish?.totalUsage.inputTokens).toBeGreaterThan(0);
    expect(llm.requests[0]).toMatchObject({ model: 'fake-model', stream: true, stream_options: { include_usage: true } });
  });

  it('streams reasoning before text', async () => {
    llm.setScript([{ reasoning: 'The user greets me. I greet back.', text: 'Hi!' }]);
    const { parts, reasoning, text } = await run('hi');
    expect(reasoning).toBe('The user greets me. I greet back.');
    expect(text).toBe('Hi!');
    const types = parts.map((part) => part.type);
    expect(types.indexOf('reasoning-start')).toBeLessThan(types.indexOf('reasoning-end'));
    expect(types.indexOf('reasoning-end')).toBeLessThan(types.indexOf('text-start'));
  });

  it('streams tool-call arguments in pieces, and the loop continues to a final text', async () => {
    llm.setScript([{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }, { text: 'The sum is 5.' }]);
    const { ofType, text } = await run('add 2 and 3');
    expect(ofType('tool-input-delta').length).toBeGreaterThan(1);
    expect(ofType('tool-call')[0]).toMatchObject({ toolName: 'add', input: { a: 2, b: 3 } });
    expect(ofType('tool-result')[0]).toMatchObject({ toolName: 'add', output: { sum: 5 } });
    expect(ofType('finish-step').map((part) => part.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(text).toBe('The sum is 5.');
    // The second request carries the call and its result, as a real provider would see them.
    expect(llm.requests).toHaveLength(2);
    const [assistant, toolMessage] = llm.requests[1]!.messages.slice(-2);
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'add' } }] });
    expect(assistant!.tool_calls![0]!.id).toMatch(/^call_\d+_0$/);
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: assistant!.tool_calls![0]!.id, content: '{"sum":5}' });
    expect(llm.requests[1]!.tools?.map((entry) => entry.function.name)).toEqual(['add', 'weather']);
  });

  it('streams parallel tool calls', async () => {
    llm.setScript([
      {
        toolCalls: [
          { name: 'weather', input: { city: 'Oslo' } },
          { name: 'weather', input: { city: 'Lima' } },
        ],
      },
      { text: 'Both sunny.' },
    ]);
    const { ofType } = await run('weather twice');
    expect(ofType('tool-result').map((part) => part.output)).toEqual([
      { city: 'Oslo', forecast: 'sunny in Oslo' },
      { city: 'Lima', forecast: 'sunny in Lima' },
    ]);
  });

  it('surfaces an error turn as an APICallError with the status and message', async () => {
    llm.setScript([{ error: { status: 503, message: 'Overloaded, try later.' } }]);
    const { ofType } = await run('hi');
    const [errorPart] = ofType('error');
    expect(APICallError.isInstance(errorPart?.error)).toBe(true);
    expect(errorPart?.error).toMatchObject({ statusCode: 503, message: 'Overloaded, try later.' });
  });

  it('surfaces a dropped connection mid-stream as an error after some text', async () => {
    llm.setScript([{ text: 'one two three four five', midStreamError: { afterChunks: 2 } }]);
    // Without a gap the client may see the reset before reading the chunks; a stream error discards them.
    llm.setLatency({ interTokenMs: 30 });
    const { text, thrown } = await run('hi');
    expect(text).toBe('one two ');
    expect(thrown).toMatchObject({ cause: { message: 'terminated' } });
    llm.setScript([{ text: 'still serving' }]);
    expect((await run('again')).text).toBe('still serving');
  });

  it('surfaces an in-band error event mid-stream', async () => {
    llm.setScript([{ text: 'one two three', midStreamError: { afterChunks: 1, mode: 'error-event', message: 'quota gone' } }]);
    const { ofType, text } = await run('hi');
    expect(text).toBe('one ');
    expect(ofType('error')[0]?.error).toMatchObject({ message: 'quota gone' });
  });

  it('delays the first token by the time to first token, then paces tokens', async () => {
    llm.setScript([{ text: fillerText(5) }]);
    llm.setLatency({ timeToFirstTokenMs: 150, interTokenMs: 20 });
    const { ofType } = await run('hi');
    const deltas = ofType('text-delta');
    expect(deltas).toHaveLength(5);
    expect(deltas[0]!.at).toBeGreaterThanOrEqual(150);
    // The last token left the server no earlier than the first token's wait plus four gaps. Timed from
    // the request, not between deltas: a first delta read late (a busy client) shortens the spread.
    expect(deltas[4]!.at).toBeGreaterThanOrEqual(150 + 4 * 20 - 5);
  });

  it('lets a turn override latency and split text into a fixed number of tokens', async () => {
    llm.setScript([{ text: 'abcdefghij', latency: { timeToFirstTokenMs: 60, tokenCount: 3 } }]);
    const { ofType } = await run('hi');
    expect(ofType('text-delta').map((part) => part.text)).toEqual(['abc', 'def', 'ghij']);
    expect(ofType('text-delta')[0]!.at).toBeGreaterThanOrEqual(60);
  });

  it('gives concurrent conversations their own turns', async () => {
    llm.setScript(
      byLastUserMessage([
        { match: /weather in (\w+)/, reply: (request) => weatherTurn(request.messages) },
        { match: 'add', reply: [{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: 'two' }] },
        { match: /./, reply: { text: 'plain answer' } },
      ]),
    );
    llm.setLatency({ timeToFirstTokenMs: 5, interTokenMs: 2 });
    const cities = Array.from({ length: 30 }, (_, index) => `City${index}`);
    const results = await Promise.all([
      ...cities.map((city) => run(`weather in ${city}`)),
      ...Array.from({ length: 10 }, () => run('please add')),
      ...Array.from({ length: 10 }, () => run('hello')),
    ]);
    cities.forEach((city, index) => {
      expect(results[index]!.ofType('tool-call')[0]?.input).toEqual({ city });
      expect(results[index]!.text).toBe(`It is sunny in ${city}.`);
    });
    for (const result of results.slice(30, 40)) expect(result.text).toBe('two');
    for (const result of results.slice(40)) expect(result.text).toBe('plain answer');
  });

  it('answers non-streaming requests with one chat.completion', async () => {
    llm.setScript([
      { reasoning: 'Adding.', toolCalls: [{ name: 'add', input: { a: 4, b: 5 } }] },
      { text: 'Nine.' },
    ]);
    const result = await generateText({
      model: model(),
      prompt: 'add 4 and 5',
      tools,
      stopWhen: isStepCount(3),
      maxRetries: 0,
    });
    expect(result.text).toBe('Nine.');
    expect(result.steps[0]!.reasoningText).toBe('Adding.');
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ output: { sum: 9 } });
    expect(result.totalUsage.outputTokens).toBeGreaterThan(0);
    expect(llm.requests[0]!.stream).toBeFalsy();
  });

  it('stops writing and clears its timers when the client aborts mid-stream', async () => {
    llm.setScript([{ text: fillerText(200) }]);
    // Long enough that a timer left running would still be pending when the assertion runs.
    llm.setLatency({ timeToFirstTokenMs: 0, interTokenMs: 5_000 });
    const controller = new AbortController();
    const startedAt = performance.now();
    const result = streamText({
      model: model(),
      prompt: 'long answer please',
      maxRetries: 0,
      abortSignal: controller.signal,
      onError: () => {},
    });
    for await (const part of result.stream) {
      if (part.type === 'text-delta') controller.abort();
    }
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    // The handler only finishes once its pending token timer is cleared by the disconnect.
    await waitFor(() => llm.inFlight === 0, 1_000);
    llm.setScript([{ text: 'fine' }]);
    expect((await run('next')).text).toBe('fine');
  });

  it('closes promptly while a stream is in flight, failing that stream', async () => {
    const own = await startFakeLlm({ script: [{ text: fillerText(50) }], latency: { interTokenMs: 5_000 } });
    const response = await fetch(`${own.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    const startedAt = performance.now();
    await own.close();
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    await expect(reader.read()).rejects.toThrow();
    await waitFor(() => own.inFlight === 0, 1_000);
  });

  it('lists models and answers unknown routes with an OpenAI-style 404', async () => {
    const models = await (await fetch(`${llm.url}/models`)).json();
    expect(models).toEqual({ object: 'list', data: [expect.objectContaining({ id: 'agentq-demo', object: 'model' })] });
    const missing = await fetch(`${llm.url}/moderations`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'not_found' } });
  });

  it('speaks the wire format: role first, finish_reason, usage chunk with empty choices, [DONE]', async () => {
    llm.setScript([{ text: 'a b' }]);
    const response = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text()).trim().split('\n\n').map((event) => event.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks[0]).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'm',
      choices: [{ delta: { role: 'assistant', content: 'a ' } }],
    });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 2 } });
  });
});

describe('scripted demo model', () => {
  beforeEach(() => {
    llm.setScript(demoModel);
  });

  it('calls the tool named by a directive, then summarizes its result', async () => {
    const { ofType, reasoning, text } = await run('Please [[tool:add {"a":1,"b":2}]] [[think]]');
    expect(ofType('tool-call')[0]).toMatchObject({ toolName: 'add', input: { a: 1, b: 2 } });
    expect(reasoning).toContain('add');
    expect(text).toContain('Scripted demo model');
    expect(text).toContain('"sum": 3');
  });

  it('names the available tools when the directive asks for a missing one', async () => {
    const { ofType, text } = await run('[[tool:ftp {"path":"/"}]]');
    expect(ofType('tool-call')).toHaveLength(0);
    expect(text).toContain('`ftp`');
    expect(text).toContain('Available: `add`, `weather`');
  });

  it('fails with HTTP 500 on [[fail]] and answers nothing on [[empty]]', async () => {
    const failed = await run('[[fail]]');
    expect(failed.ofType('error')[0]?.error).toMatchObject({ statusCode: 500 });
    const empty = await run('[[empty]]');
    expect(empty.text).toBe('');
    expect(empty.ofType('finish')[0]?.finishReason).toBe('stop');
  });

  it("answers the worker's follow-ups prompt with a JSON list of demo questions", async () => {
    const { text } = await run('Suggest follow-up questions: write 3 short questions…\n\nConversation:\n"""\nUser: hi\n"""');
    expect(JSON.parse(text)).toEqual(DEMO_FOLLOW_UPS);
  });

  it('echoes a plain message with the directive list', async () => {
    const { text } = await run('What can you do?');
    expect(text).toContain('> What can you do?');
    expect(text).toContain('[[tool:add');
  });

  it('handles a multi-turn conversation: the directive in an earlier message is not repeated', async () => {
    const question: ModelMessage = { role: 'user', content: '[[tool:add {"a":2,"b":2}]]' };
    const first = streamText({ model: model(), messages: [question], tools, stopWhen: isStepCount(3), maxRetries: 0 });
    const history: ModelMessage[] = [question, ...(await first.responseMessages)];
    const { ofType, text } = await run([...history, { role: 'user', content: 'thanks' }]);
    expect(ofType('tool-call')).toHaveLength(0);
    expect(text).toContain('> thanks');
  });
});

describe('parseDirectives', () => {
  it('parses tool inputs whose JSON holds brackets and braces', () => {
    const parsed = parseDirectives('go [[tool:fetch {"url":"https://x.test/?q=]]}","list":[[1]]}]] and [[THINK]] now');
    expect(parsed.toolCalls).toEqual([{ name: 'fetch', input: { url: 'https://x.test/?q=]]}', list: [[1]] } }]);
    expect([...parsed.flags]).toEqual(['think']);
    expect(parsed.rest).toBe('go and now');
  });

  it('reports a malformed tool directive instead of calling the tool', () => {
    const parsed = parseDirectives('[[tool:add {"a":1,}]]');
    expect(parsed.toolCalls).toEqual([]);
    expect(parsed.problems[0]).toContain('not valid JSON');
  });

  it('accepts a tool directive without input', () => {
    expect(parseDirectives('[[tool:now]]').toolCalls).toEqual([{ name: 'now', input: {} }]);
  });
});

describe('script helpers', () => {
  const request = (messages: Array<{ role: 'user' | 'assistant' | 'tool'; content: string }>) => ({ model: 'm', messages });

  it('sequence picks the turn by assistant messages and repeats the last', () => {
    const turns: Turn[] = [{ text: 'first' }, { text: 'second' }];
    const script = sequence(turns);
    expect(script(request([{ role: 'user', content: 'a' }]))).toEqual({ text: 'first' });
    expect(script(request([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'x' }]))).toEqual({ text: 'second' });
    const third = request([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'x' },
      { role: 'assistant', content: 'y' },
    ]);
    expect(script(third)).toEqual({ text: 'second' });
  });

  it('byLastUserMessage fails with the rules listed when nothing matches', async () => {
    const script = byLastUserMessage([{ match: /weather/, reply: { text: 'sunny' } }]);
    const turn = await script(request([{ role: 'user', content: 'joke please' }]));
    expect(turn.error?.status).toBe(500);
    expect(turn.error?.message).toContain('/weather/');
  });
});

describe('audio transcriptions', () => {
  const WEBM_HEADER = [0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81];
  const transcribe = (fields: Record<string, string | Blob>, headers: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string') form.set(name, value);
      else form.set(name, value, 'recording.webm');
    }
    return fetch(`${llm.url}/audio/transcriptions`, { method: 'POST', headers, body: form });
  };
  const audio = () => new Blob([new Uint8Array([...WEBM_HEADER, ...new Array(1016).fill(7)])], { type: 'audio/webm' });

  beforeEach(() => {
    llm.transcriptions.length = 0;
    llm.setTranscription(demoTranscription);
  });

  it('parses the multipart, records what arrived and answers the demo text by default', async () => {
    const response = await transcribe({ file: audio(), model: 'whisper-1', language: 'en', response_format: 'json' }, { authorization: 'Bearer sk-test' });
    expect(response.status).toBe(200);
    const { text } = (await response.json()) as { text: string };
    expect(text).toContain('Scripted demo transcription: 1.0 KB of audio/webm received (language en)');
    expect(llm.transcriptions).toEqual([
      { model: 'whisper-1', language: 'en', responseFormat: 'json', fileName: 'recording.webm', mimeType: 'audio/webm', byteCount: 1024, leadingBytes: '1a45dfa39f428681', authorization: 'Bearer sk-test' },
    ]);
  });

  it('answers the scripted text, or the scripted OpenAI-style error', async () => {
    llm.setTranscription('Hello from the microphone.');
    expect(await (await transcribe({ file: audio(), model: 'whisper-1' })).json()).toEqual({ text: 'Hello from the microphone.' });
    expect(llm.transcriptions[0]?.language).toBeUndefined();

    llm.setTranscription((request) => (request.model === 'broken' ? { error: { status: 503, message: 'Transcription backend overloaded' } } : { text: request.model }));
    const failed = await transcribe({ file: audio(), model: 'broken' });
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ error: { message: 'Transcription backend overloaded', type: 'server_error', param: null, code: null } });
    expect(await (await transcribe({ file: audio(), model: 'echo-me' })).json()).toEqual({ text: 'echo-me' });
  });

  it('refuses a body without a file or a model, or one that is not multipart, as OpenAI does (400)', async () => {
    const noFile = await transcribe({ model: 'whisper-1' });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as { error: { message: string } }).error.message).toContain("'file'");
    expect((await transcribe({ file: audio() })).status).toBe(400);
    const json = await fetch(`${llm.url}/audio/transcriptions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(400);
    expect(llm.transcriptions).toEqual([]);
  });
});

function weatherTurn(messages: Array<{ role: string; content?: unknown }>): Turn {
  const lastUser = messages.findLast((message) => message.role === 'user');
  const city = /weather in (\w+)/.exec(String(lastUser?.content))![1]!;
  return messages.at(-1)?.role === 'tool'
    ? { text: `It is sunny in ${city}.` }
    : { toolCalls: [{ name: 'weather', input: { city } }] };
}

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Condition still false after ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
