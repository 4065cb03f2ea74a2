import type { RunChunk } from './run-event';

type Part = { type: string; [key: string]: unknown };

/**
 * UI message chunks that rebuild a persisted assistant message's parts, for replaying runs whose
 * Redis stream has expired or was lost. Starts with `start`; adds no `finish`.
 */
export function messageToChunks(messageId: string, parts: unknown[]): RunChunk[] {
  const chunks: RunChunk[] = [{ type: 'start', messageId }];
  parts.forEach((raw, index) => {
    const part = raw as Part;
    const id = `${messageId}-${index}`;
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
      const approval = part.approval as { id?: string } | undefined;
      if (approval?.id) chunks.push({ type: 'tool-approval-request', approvalId: approval.id, toolCallId });
      if (part.state === 'output-available') chunks.push({ type: 'tool-output-available', toolCallId, output: part.output });
      if (part.state === 'output-error') chunks.push({ type: 'tool-output-error', toolCallId, errorText: String(part.errorText ?? '') });
      if (part.state === 'output-denied') chunks.push({ type: 'tool-output-denied', toolCallId });
    } else if (part.type.startsWith('data-')) {
      chunks.push({ type: part.type, id: part.id, data: part.data } as RunChunk);
    }
  });
  return chunks;
}
