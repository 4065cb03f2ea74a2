import type { RunChunk, RunEvent } from '@agentq/shared/events';
import type { Run } from '@agentq/shared/services';

type Part = { type: string; [key: string]: unknown };

/**
 * Chunks that rebuild a persisted assistant message, for runs whose Redis stream has expired.
 * Sequence numbers are those of the replay itself (from 1).
 */
export function replayFromMessage(run: Run, parts: unknown[]): RunEvent[] {
  const chunks: RunChunk[] = [{ type: 'start', messageId: run.id }];
  parts.forEach((raw, index) => {
    const part = raw as Part;
    const id = `${run.id}-${index}`;
    if (part.type === 'text') {
      chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: String(part.text ?? '') }, { type: 'text-end', id });
    } else if (part.type === 'reasoning') {
      chunks.push(
        { type: 'reasoning-start', id },
        { type: 'reasoning-delta', id, delta: String(part.text ?? '') },
        { type: 'reasoning-end', id, providerMetadata: part.providerMetadata as never },
      );
    } else if (part.type === 'step-start') {
      chunks.push({ type: 'start-step' });
    } else if (part.type.startsWith('tool-')) {
      const toolCallId = String(part.toolCallId);
      chunks.push({ type: 'tool-input-available', toolCallId, toolName: part.type.slice(5), input: part.input });
      if (part.state === 'output-available') chunks.push({ type: 'tool-output-available', toolCallId, output: part.output });
      if (part.state === 'output-error') chunks.push({ type: 'tool-output-error', toolCallId, errorText: String(part.errorText ?? '') });
      if (part.state === 'output-denied') chunks.push({ type: 'tool-output-denied', toolCallId });
    } else if (part.type.startsWith('data-')) {
      chunks.push({ type: part.type, id: part.id, data: part.data } as RunChunk);
    }
  });
  chunks.push({
    type: 'data-run-status',
    transient: true,
    data: { status: run.status, finishReason: run.finishReason ?? undefined, steps: run.steps, hitStepLimit: run.hitStepLimit, error: run.error ?? undefined },
  });
  if (run.error) chunks.push({ type: 'error', errorText: run.error });
  chunks.push({ type: 'finish' });
  return chunks.map((chunk, index) => ({ runId: run.id, seq: index + 1, chunk }));
}
