import type { FollowUpsData } from '@agentq/shared/events';
import type { LlmModelWithKey } from '@agentq/shared/services';
import { generateText, type ModelMessage } from 'ai';
import type { WorkerDeps } from '../processor';
import { followUpsPrompt, parseFollowUps } from './follow-ups-prompt';
import { createLanguageModel } from './language-model';

/** How long a model may take to suggest follow-ups (`config.followUpsTimeoutMs` overrides it); the run's end waits at most this. */
export const DEFAULT_FOLLOW_UPS_TIMEOUT_MS = 10_000;
/** Enough for 3 short questions, even in a script that needs a few tokens a character. */
const MAX_FOLLOW_UPS_TOKENS = 400;

export type SuggestFollowUpsOptions = {
  model: LlmModelWithKey;
  /** The conversation with its answer, as the run's last step left it. */
  history: readonly ModelMessage[];
  /** The run's signal: a cancelled or handed-over run asks nothing more. */
  signal: AbortSignal;
  timeoutMs: number;
};

/**
 * Asks the run's model for 3 questions the user might ask next, after its answer. Resolves with them,
 * or null: the call failed, timed out or answered no usable list (the answer then offers none). Never
 * rejects, and settles within `timeoutMs`. Its tokens are not the run's (the caller does not count them).
 */
export function suggestFollowUps(deps: WorkerDeps, options: SuggestFollowUpsOptions): Promise<FollowUpsData | null> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const suggested = (async (): Promise<FollowUpsData | null> => {
    const { text } = await generateText({
      model: createLanguageModel(options.model),
      messages: [{ role: 'user', content: followUpsPrompt(options.history) }],
      maxOutputTokens: MAX_FOLLOW_UPS_TOKENS,
      // A nicety with a deadline: a failed call is not worth a second one.
      maxRetries: 0,
      abortSignal: signal,
    });
    const questions = parseFollowUps(text);
    if (!questions) {
      deps.logger.warn('the model answered no usable follow-up questions; the answer offers none');
      return null;
    }
    signal.throwIfAborted();
    return { questions };
  })();
  const stopped = new Promise<null>((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
  return Promise.race([suggested, stopped]).then(
    (result) => {
      if (result === null && deadline.aborted) deps.logger.warn({ timeoutMs: options.timeoutMs }, 'the model did not suggest follow-up questions in time; the answer offers none');
      return result;
    },
    (error: unknown) => {
      // Only the error's kind: a provider's message may quote the request (the conversation).
      const { name, statusCode } = error as { name?: string; statusCode?: number };
      if (options.signal.aborted) deps.logger.debug({ reason: name }, 'suggesting follow-ups stopped with its run');
      else deps.logger.warn({ reason: name ?? typeof error, statusCode }, 'the model could not suggest follow-up questions; the answer offers none');
      return null;
    },
  );
}
