/** One run event as the compact list shows it. */
export type EventLine = { seq: number; type: string; summary: string; tone?: 'error' | 'success' | 'muted' };

type Chunk = { type: string; [key: string]: unknown };

function clip(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** A one-line description of a UI message chunk (or one of our data parts). */
export function summarizeChunk(seq: number, chunk: Chunk): EventLine {
  const line = (summary: string, tone?: EventLine['tone']): EventLine => ({ seq, type: chunk.type, summary, tone });
  const data = (chunk.data ?? {}) as Record<string, unknown>;
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return line(`“${clip(String(chunk.delta ?? ''))}”`);
    case 'tool-input-available':
      return line(`${String(chunk.toolName)} ${clip(json(chunk.input), 100)}`);
    case 'tool-output-available': {
      const output = (chunk.output ?? {}) as { success?: boolean; text?: string; durationMs?: number };
      const duration = typeof output.durationMs === 'number' ? ` (${Math.round(output.durationMs)} ms)` : '';
      return line(`${output.success === false ? 'error' : 'ok'}${duration}: ${clip(String(output.text ?? json(chunk.output)))}`, output.success === false ? 'error' : 'success');
    }
    case 'tool-output-error':
      return line(clip(String(chunk.errorText ?? '')), 'error');
    case 'tool-output-denied':
      return line('denied', 'error');
    case 'data-run-status':
      return line([data.status, data.finishReason, data.error].filter(Boolean).join(' · '), data.status === 'failed' ? 'error' : undefined);
    case 'data-session-title':
      return line(clip(String(data.title ?? '')));
    case 'data-follow-ups':
      return line(clip(Array.isArray(data.questions) ? data.questions.map(String).join(' · ') : ''));
    case 'data-approval-request':
      return line(`${String(data.toolName)} waits for approval`);
    case 'data-approval-response':
      return line(`${String(data.status)}${data.decidedBy ? ` by ${String(data.decidedBy)}` : ''}${data.reason ? `: ${clip(String(data.reason))}` : ''}`);
    case 'error':
      return line(clip(String(chunk.errorText ?? '')), 'error');
    case 'finish':
      return line(String(chunk.finishReason ?? ''), 'muted');
    default:
      return line('', 'muted');
  }
}
