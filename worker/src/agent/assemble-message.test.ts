import type { RunChunk } from '@agentq/shared/events';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { assembleMessage } from './assemble-message';

/** The AI SDK's reducer over the chunks exactly as streamed: what a client rebuilds. */
async function asStreamed(chunks: RunChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let message: UIMessage = { id: 'run_1', role: 'assistant', parts: [] };
  for await (const update of readUIMessageStream<UIMessage>({ message, stream })) message = update;
  return message;
}

describe('assembleMessage', () => {
  it('builds the message a client rebuilds from the stream, tokens merged or not, without the transient events', async () => {
    const streamed: RunChunk[] = [
      { type: 'start-step' },
      { type: 'reasoning-start', id: 'r' },
      ...['Let', ' me', ' think'].map((delta) => ({ type: 'reasoning-delta', id: 'r', delta }) as RunChunk),
      { type: 'reasoning-end', id: 'r' },
      { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'calc', input: { expression: '6 * 7' } },
      { type: 'tool-output-available', toolCallId: 'call_1', output: { text: '42' } },
      { type: 'finish-step' },
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      ...'The answer is 42.'.split(' ').map((word, index) => ({ type: 'text-delta', id: 't', delta: index ? ` ${word}` : word }) as RunChunk),
      { type: 'text-delta', id: 't', delta: '', providerMetadata: { agentq: { last: true } } } as RunChunk,
      { type: 'text-end', id: 't' },
      { type: 'finish-step' },
    ];
    const transient: RunChunk[] = [{ type: 'data-run-status', data: { status: 'running' }, transient: true } as RunChunk, { type: 'error', errorText: 'shown, not stored' }];
    const assembled = await assembleMessage('run_1', [transient[0]!, ...streamed.slice(0, 9), transient[1]!, ...streamed.slice(9)]);
    expect(assembled).toEqual(await asStreamed(streamed));
    expect(assembled.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'The answer is 42.', providerMetadata: { agentq: { last: true } } });
    expect(assembled.parts.find((part) => part.type === 'reasoning')).toMatchObject({ text: 'Let me think' });
  });

  it("stores a tool call whose input the model streamed in pieces as a client rebuilds it, the pieces merged or not", async () => {
    const pieces = ['{"expre', 'ssion', '": "6 ', '* 7"}'];
    const call = (deltas: string[]): RunChunk[] => [
      { type: 'start-step' },
      { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'calc' },
      ...deltas.map((inputTextDelta) => ({ type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta }) as RunChunk),
      { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'calc', input: { expression: '6 * 7' } },
      { type: 'tool-output-available', toolCallId: 'call_1', output: { text: '42' } },
      { type: 'finish-step' },
    ];
    // As the publisher sends them: merged while they waited.
    const asPublished = call([pieces.join('')]);
    const assembled = await assembleMessage('run_1', call(pieces));
    expect(assembled).toEqual(await asStreamed(call(pieces)));
    expect(await asStreamed(asPublished)).toEqual(assembled);
    expect(assembled.parts.find((part) => part.type === 'tool-calc')).toMatchObject({ state: 'output-available', input: { expression: '6 * 7' }, output: { text: '42' } });
  });
});
