import { withoutRetriedAttempts, type RunEvent } from '@agentq/shared/events';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';

/** What a client rebuilds from a run's events with the AI SDK's own reducer (abandoned step attempts, transient parts and errors are not persisted). */
export async function rebuildMessage(events: RunEvent[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const event of withoutRetriedAttempts(events)) if (!(event.chunk as { transient?: boolean }).transient && event.chunk.type !== 'error') controller.enqueue(event.chunk as UIMessageChunk);
      controller.close();
    },
  });
  let message: UIMessage = { id: 'rebuilt', role: 'assistant', parts: [] };
  for await (const update of readUIMessageStream({ message, stream })) message = update;
  return message;
}
