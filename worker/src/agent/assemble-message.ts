import { mergeDeltas, type RunChunk } from '@agentq/shared/events';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';

/**
 * The assistant message a list of run chunks describes, built by the AI SDK's own reducer, so the
 * persisted message is by construction what a client rebuilds from the same stream.
 */
export async function assembleMessage(messageId: string, chunks: RunChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of persistedChunks(chunks)) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage = { id: messageId, role: 'assistant', parts: [] };
  for await (const update of readUIMessageStream<UIMessage>({ message, stream, onError: () => {} })) message = update;
  return { ...message, id: messageId };
}

/**
 * The chunks a message is built from: transient status updates and the stream's own bookkeeping
 * dropped, and a part's consecutive deltas merged into one. The reducer copies the whole message
 * (structuredClone) for every chunk it reads, so a run's fifty tokens would cost fifty copies.
 */
function persistedChunks(chunks: RunChunk[]): UIMessageChunk[] {
  const kept: UIMessageChunk[] = [];
  for (const chunk of chunks) {
    if ((chunk as { transient?: boolean }).transient) continue;
    if (chunk.type === 'error' || chunk.type === 'abort') continue;
    const merged = mergeDeltas(kept.at(-1), chunk);
    if (merged) kept[kept.length - 1] = merged;
    else kept.push(chunk as UIMessageChunk);
  }
  return kept;
}

/** True when the message has something to show: text with content or any tool call. */
export function hasContent(message: UIMessage): boolean {
  return message.parts.some((part) => (part.type === 'text' && part.text.trim().length > 0) || part.type.startsWith('tool-') || part.type === 'dynamic-tool');
}

/** True when the message has a non-empty answer text. */
export function hasText(message: UIMessage): boolean {
  return message.parts.some((part) => part.type === 'text' && part.text.trim().length > 0);
}
