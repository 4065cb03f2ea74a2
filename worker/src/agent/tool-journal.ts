import type { RunChunk, ToolOutput } from '@agentq/shared/events';
import { toolCallsOfRun, type Run, type ToolCallEntry } from '@agentq/shared/services';
import type { ModelMessage } from 'ai';
import type { WorkerDeps } from '../processor';
import { runToolCall, toolCallIdsIn, type OfferedModelTool, type ToolCallContext } from './build-tool-set';
import type { RunStream } from './open-run-stream';

// Not `start-step`: the run timeline already counts the abandoned step (see run-timeline.ts).
const CARRIED_TYPES = new Set(['text-start', 'text-delta', 'text-end', 'reasoning-start', 'reasoning-delta', 'reasoning-end']);

/**
 * What the abandoned attempt's model had streamed before its last pending call (the step's text and
 * reasoning, e.g. "Let me look that up."), as chunks to publish again after the `data-step-retry`
 * marker that dropped them. Output after that call is a cut-off continuation and stays dropped. A
 * text the provider had not closed yet (it closes text at the end of the step) is closed here.
 */
export function outputBeforeCalls(abandoned: RunChunk[], callIds: Set<string>): { chunks: RunChunk[]; text: string } {
  const cut = abandoned.findLastIndex((chunk) => chunk.type.startsWith('tool-input-') && callIds.has((chunk as { toolCallId?: string }).toolCallId ?? ''));
  const chunks: RunChunk[] = [];
  const open = new Map<string, 'text' | 'reasoning'>();
  let text = '';
  for (const chunk of abandoned.slice(0, Math.max(cut, 0))) {
    if (!CARRIED_TYPES.has(chunk.type)) continue;
    const { id, delta } = chunk as { id?: string; delta?: string };
    if (chunk.type === 'text-start' || chunk.type === 'reasoning-start') open.set(id!, chunk.type === 'text-start' ? 'text' : 'reasoning');
    if (chunk.type === 'text-end' || chunk.type === 'reasoning-end') open.delete(id!);
    if (chunk.type === 'text-delta') text += delta ?? '';
    chunks.push(chunk);
  }
  for (const [id, kind] of open) chunks.push({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id } as RunChunk);
  return { chunks, text };
}

/**
 * A previous attempt died while its step's tools ran: the journal has calls the checkpointed history
 * has no result for. Finishes each one through the journal (a completed call returns its result, an
 * interrupted non-idempotent one its interrupted error, the rest run again) and returns the history
 * with those calls and results, so the model continues instead of re-running the step. Null when
 * nothing was pending.
 */
export async function finishJournaledCalls(
  deps: WorkerDeps,
  options: {
    run: Run;
    history: ModelMessage[];
    offered: OfferedModelTool[];
    context: Omit<ToolCallContext, 'beforeRun' | 'onFatal'>;
    stream: RunStream;
    /** The run's journal, when the job read it with its claim. */
    entries?: Promise<ToolCallEntry[]>;
    /** The run's citation numbers: a call run again must not take a number a replayed result already has. */
    sources?: { notice: (output: unknown) => void };
  },
): Promise<{ history: ModelMessage[]; announced: boolean } | null> {
  const { run, history, offered, context, stream } = options;
  const answered = toolCallIdsIn(history, 'tool-result');
  const pending = (await (options.entries ?? toolCallsOfRun(deps.db, run.id))).filter((entry) => !answered.has(entry.toolCallId));
  if (pending.length === 0) return null;
  for (const entry of pending) if (entry.result) options.sources?.notice(entry.result);
  const known = toolCallIdsIn(history, 'tool-call');
  const unannounced = pending.filter((call) => !known.has(call.toolCallId));
  // The model's text before the calls it never saw answered: shown, stored and sent to the model once.
  const carried = outputBeforeCalls(stream.abandoned, new Set(unannounced.map((call) => call.toolCallId)));
  for (const chunk of carried.chunks) stream.emit(chunk);
  const results: { toolCallId: string; toolName: string; output: ToolOutput }[] = [];
  for (const call of pending) {
    const instance = offered.find((entry) => entry.name === call.toolSlug);
    // The abandoned attempt's parts were dropped (data-step-retry): show the call again, then its outcome.
    stream.emit({ type: 'tool-input-available', toolCallId: call.toolCallId, toolName: call.toolSlug, input: call.input });
    // Stored before the call runs again: a crash in it must find the carried text to carry it once more.
    await stream.callShown(call.toolCallId, context.signal);
    const output: ToolOutput = instance
      ? await runToolCall(deps, instance, call.toolCallId, call.input, context)
      : { success: false, text: `Tool ${call.toolSlug} is no longer available.`, error: 'unavailable', durationMs: 0 };
    stream.emit({ type: 'tool-output-available', toolCallId: call.toolCallId, output });
    results.push({ toolCallId: call.toolCallId, toolName: call.toolSlug, output });
  }
  return {
    announced: unannounced.length > 0,
    history: [
      ...history,
      ...(unannounced.length
        ? [
            {
              role: 'assistant' as const,
              content: [
                ...(carried.text ? [{ type: 'text' as const, text: carried.text }] : []),
                ...unannounced.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolSlug, input: call.input })),
              ],
            },
          ]
        : []),
      {
        role: 'tool' as const,
        content: results.map((result) => ({ type: 'tool-result' as const, toolCallId: result.toolCallId, toolName: result.toolName, output: { type: 'text' as const, value: result.output.text } })),
      },
    ],
  };
}
