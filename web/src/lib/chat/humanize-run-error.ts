/**
 * A run's error as a person reads it: one sentence about what went wrong and what to do, with the
 * provider's raw text kept as collapsible details. Model/provider failures arrive as SDK wording
 * ("AI_APICallError: Unauthorized", "Failed to process successful response", "fetch failed").
 */
export type HumanizedError = { summary: string; details: string | undefined };

type Rule = { test: RegExp; summary: string };

const RULES: Rule[] = [
  { test: /\b(401|unauthori[sz]ed|invalid api key|incorrect api key|authentication)\b/i, summary: 'The model provider did not accept the API key. An admin should check the key on the Models page.' },
  { test: /\b(403|forbidden|permission)\b/i, summary: 'The model provider refused access to this model. An admin should check the account and the model on the Models page.' },
  { test: /\b(429|rate.?limit|too many requests|quota)\b/i, summary: 'The model provider is limiting requests right now. Wait a moment and try again.' },
  { test: /\b(404|model.{0,40}not (found|exist)|no such model|unknown model)\b/i, summary: 'The model provider does not know this model. An admin should check the model id on the Models page.' },
  { test: /context.?length|maximum context|too many tokens|token limit/i, summary: 'The conversation is too long for this model. Start a new chat or choose a model with a larger context.' },
  { test: /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed|cannot connect|connect timeout|socket hang up|network/i, summary: 'The model provider could not be reached. Try again shortly; if it keeps happening, an admin should check the model\'s base URL.' },
  { test: /timed? ?out|timeout|aborted due to timeout/i, summary: 'The model took too long to answer. Try again.' },
  { test: /failed to process successful response|invalid json|unexpected token|type validation|could not parse/i, summary: 'The model provider sent an answer that could not be read. Try again, or choose another model.' },
  { test: /\b5\d\d\b|internal server error|bad gateway|service unavailable|overloaded/i, summary: 'The model provider had a problem on its side. Try again in a moment.' },
];

/** Errors written by us for people already (no SDK wording): shown as they are. */
const RAW_SIGNS = /\bAI_[A-Za-z]+Error\b|APICallError|Error:|\bat \S+ \(|^\s*[{[]|status(Code)?\s*[:=]\s*\d{3}|ECONN|fetch failed|Failed to process/;

export function humanizeRunError(error: string): HumanizedError {
  const text = error.trim();
  const rule = RULES.find((candidate) => candidate.test.test(text));
  if (rule) return { summary: rule.summary, details: text };
  // A message that is already a sentence for people (ours, or a provider's refusal) is shown as it is.
  if (!RAW_SIGNS.test(text)) return { summary: text, details: undefined };
  return { summary: 'The model could not answer this time. Try again, or choose another model.', details: text };
}
