import type { SessionTitleData } from '@agentq/shared/events';
import { cleanModelTitle, questionToName, storeModelSessionTitle, type LlmModelWithKey, type Run } from '@agentq/shared/services';
import { generateText } from 'ai';
import type { WorkerDeps } from '../processor';
import { chatTitlePrompt } from './chat-title-prompt';
import { createLanguageModel } from './language-model';

/** How long a chat's model may take to name it (`config.chatTitleTimeoutMs` overrides it); the run's end waits at most this. */
export const DEFAULT_CHAT_TITLE_TIMEOUT_MS = 10_000;
/** Enough for a title, even from a model that writes a few words of preamble. */
const MAX_TITLE_TOKENS = 100;

export type NameChatOptions = {
  run: Pick<Run, 'id' | 'sessionId' | 'replyToMessageId'>;
  model: LlmModelWithKey;
  /** The run's signal: a cancelled or handed-over run stops naming its chat too. */
  signal: AbortSignal;
  /** The run's claim, when it is not confirmed yet (an opened first question): nothing is asked before it. */
  ready?: Promise<unknown>;
  timeoutMs: number;
};

/**
 * Has the chat's model name the chat from its first question, beside the first answer, and stores
 * the title unless the user named the chat meanwhile. Resolves with the stored title, or null: not
 * the chat's first question (a regenerate, an edit below it), named by the user, or the call failed,
 * timed out or answered nothing (the chat keeps the title its question gave it). Never rejects, and
 * settles within `timeoutMs`, so the run's end can wait for it.
 */
export function nameChat(deps: WorkerDeps, options: NameChatOptions): Promise<SessionTitleData | null> {
  const { run, model, ready } = options;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const named = (async (): Promise<SessionTitleData | null> => {
    if (ready && !(await ready.then(() => true, () => false))) return null;
    const question = await questionToName(deps.db, run);
    if (!question || !run.sessionId) return null;
    const { text } = await generateText({
      model: createLanguageModel(model),
      messages: [{ role: 'user', content: chatTitlePrompt(question) }],
      maxOutputTokens: MAX_TITLE_TOKENS,
      // The title is a nicety with a deadline: a failed call is not worth a second one.
      maxRetries: 0,
      abortSignal: signal,
    });
    const title = cleanModelTitle(text);
    if (!title) {
      deps.logger.debug('the model answered no title; the chat keeps its own');
      return null;
    }
    signal.throwIfAborted();
    if (!(await storeModelSessionTitle(deps.db, run.sessionId, title))) return null;
    return { sessionId: run.sessionId, title };
  })();
  const stopped = new Promise<null>((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
  return Promise.race([named, stopped]).then(
    (result) => {
      if (result === null && deadline.aborted) deps.logger.warn({ timeoutMs: options.timeoutMs }, 'the model did not name the chat in time; the chat keeps its own title');
      return result;
    },
    (error: unknown) => {
      // Only the error's kind: a provider's message may quote the request (the user's question).
      const { name, statusCode } = error as { name?: string; statusCode?: number };
      if (options.signal.aborted) deps.logger.debug({ reason: name }, 'naming the chat stopped with its run');
      else deps.logger.warn({ reason: name ?? typeof error, statusCode }, 'the model could not name the chat; the chat keeps its own title');
      return null;
    },
  );
}
