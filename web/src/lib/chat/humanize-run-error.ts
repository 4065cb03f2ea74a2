/**
 * A run's error as a person reads it: one sentence about what went wrong and what to do, with the
 * provider's raw text kept as collapsible details. Model/provider failures arrive as SDK wording
 * ("AI_APICallError: Unauthorized", "Failed to process successful response", "fetch failed").
 * The summary is in the UI's language; the raw details stay as the provider wrote them.
 */
import { t, type MessageKey } from '../i18n/i18n.svelte.ts';

export type HumanizedError = { summary: string; details: string | undefined };

type Rule = { test: RegExp; summary: MessageKey };

const RULES: Rule[] = [
  { test: /\b(401|unauthori[sz]ed|invalid api key|incorrect api key|authentication)\b/i, summary: 'runError.apiKey' },
  { test: /\b(403|forbidden|permission)\b/i, summary: 'runError.forbidden' },
  { test: /\b(429|rate.?limit|too many requests|quota)\b/i, summary: 'runError.rateLimit' },
  { test: /\b(404|model.{0,40}not (found|exist)|no such model|unknown model)\b/i, summary: 'runError.unknownModel' },
  { test: /context.?length|maximum context|too many tokens|token limit/i, summary: 'runError.tooLong' },
  { test: /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed|cannot connect|connect timeout|socket hang up|network/i, summary: 'runError.unreachable' },
  { test: /timed? ?out|timeout|aborted due to timeout/i, summary: 'runError.timeout' },
  { test: /failed to process successful response|invalid json|unexpected token|type validation|could not parse/i, summary: 'runError.unreadable' },
  { test: /\b5\d\d\b|internal server error|bad gateway|service unavailable|overloaded/i, summary: 'runError.providerError' },
];

/** Errors written by us for people already (no SDK wording): shown as they are. */
const RAW_SIGNS = /\bAI_[A-Za-z]+Error\b|APICallError|Error:|\bat \S+ \(|^\s*[{[]|status(Code)?\s*[:=]\s*\d{3}|ECONN|fetch failed|Failed to process/;

export function humanizeRunError(error: string): HumanizedError {
  const text = error.trim();
  const rule = RULES.find((candidate) => candidate.test.test(text));
  if (rule) return { summary: t(rule.summary), details: text };
  // A message that is already a sentence for people (ours, or a provider's refusal) is shown as it is.
  if (!RAW_SIGNS.test(text)) return { summary: text, details: undefined };
  return { summary: t('runError.generic'), details: text };
}
