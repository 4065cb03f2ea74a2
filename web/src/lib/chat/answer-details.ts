/**
 * An answer's details, as Open WebUI's "info" on a response shows them: the model, the tokens in
 * and out, what they cost (where the model has prices), how long the run took, its output speed
 * and its steps. From the run's stored outcome.
 */
import { formatDuration } from '../admin/operations.ts';
import { intlLocale, t } from '../i18n/i18n.svelte.ts';
import { formatUsd } from '../usage/money.ts';
import type { RunOutcome } from './sessions-api.ts';

const tokenCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The pieces to show ("Scripted model", "3,182 in · 102 out tokens", "$0.0012", "2.8 s", "36.4 tokens/s", "2 steps"); empty when the run reported nothing. */
export function answerDetails(run: RunOutcome | undefined, modelName: string | undefined): string[] {
  if (!run) return [];
  const number = new Intl.NumberFormat(intlLocale());
  const usage = (run.usage ?? {}) as Record<string, unknown>;
  const input = tokenCount(usage.inputTokens);
  const output = tokenCount(usage.outputTokens);
  const reasoning = tokenCount(usage.reasoningTokens);
  const details: string[] = [];
  if (modelName) details.push(modelName);
  if (input !== undefined && output !== undefined) details.push(t('chat.tokensInOut', { input: number.format(input), output: number.format(output) }));
  if (reasoning) details.push(t('chat.reasoningTokens', { count: number.format(reasoning) }));
  if (run.cost !== null && run.cost !== undefined) details.push(formatUsd(run.cost));
  if (run.startedAt && run.finishedAt) {
    const durationMs = new Date(run.finishedAt).getTime() - new Date(run.startedAt).getTime();
    details.push(formatDuration(durationMs));
    // Over the whole run (waiting for the first token and tool calls included), as Open WebUI's response speed.
    if (output && durationMs > 0) details.push(t('chat.tokensPerSecond', { rate: number.format(Math.round((output / durationMs) * 10_000) / 10) }));
  }
  if (run.steps > 0) details.push(t(run.steps === 1 ? 'chat.oneStep' : 'chat.steps', { count: run.steps }));
  return details;
}
