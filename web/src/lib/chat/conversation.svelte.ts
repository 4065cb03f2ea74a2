import type { UIMessage } from 'ai';
import { ApiError } from '../api.ts';
import { issueText } from '../forms/issue-text.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { usageLimitReachedText } from '../usage/usage-notice.ts';
import { messageFiles, type AttachedFile } from './attachments.ts';
import { chosenBasesOf, type KnowledgeChoice } from '../knowledge/hash-command.ts';
import type { SessionTitleData } from '@agentq/shared/events';
import { RunStream } from './run-stream.svelte.ts';
import {
  clearAnswerRating,
  editMessage,
  getSession,
  rateAnswer,
  regenerateMessage,
  reviseAnswer,
  selectVersion,
  forkChat,
  startRun,
  type AnswerFeedback,
  type FeedbackRating,
  type MessageVersions,
  type RunOutcome,
  type SessionDetail,
  type SessionMessage,
  type StartedRun,
  type StartRunBody,
} from './sessions-api.ts';

/**
 * A question. `local`: shown from what was sent, not read back yet; its id is a placeholder, so it
 * has no actions (an edit begun on it would vanish with the read that replaces it).
 */
export type UserEntry = { kind: 'user'; id: string; text: string; files: AttachedFile[]; knowledge: KnowledgeChoice[]; pending: boolean; local?: boolean; versions?: MessageVersions | undefined };

/** An assistant turn: a stored message with its run's outcome, or a live `RunStream`. */
export type AssistantEntry = {
  kind: 'assistant';
  id: string;
  runId: string | null;
  /** The stored message; undefined for a run that produced nothing (its run says why). */
  message: UIMessage | undefined;
  /** The run's outcome, when it could be read. */
  run: RunOutcome | undefined;
  stream: RunStream | undefined;
  versions?: MessageVersions | undefined;
};

export type ChatEntry = UserEntry | AssistantEntry;

export type ConversationOptions = {
  /** The chat's model named this chat while one of its runs was followed: the title is stored already. */
  onTitle?: (title: string) => void;
};

const MAX_REFOLLOWS = 3;

/**
 * One session's conversation: the stored messages, and the run that is streaming. Built from
 * the page load; when the session has an active run (a reload mid-run) its events are replayed
 * from the start and then followed live, in place of the message the run has not stored yet.
 */
export class Conversation {
  readonly sessionId: string;
  entries = $state.raw<ChatEntry[]>([]);
  sending = $state(false);
  sendError = $state<string | undefined>(undefined);
  stopError = $state<string | undefined>(undefined);
  /** A version switch, regenerate or edit is being sent. */
  changing = $state(false);
  #pendingCount = 0;
  /** Bumped by every send and change: a refresh that started before one must not undo it. */
  #generation = 0;
  #refollows = 0;
  readonly #runs = new Map<string, RunOutcome>();
  /** The user's ratings of answers, by message id. */
  feedback = $state.raw<ReadonlyMap<string, AnswerFeedback>>(new Map());
  readonly #options: ConversationOptions;

  constructor(detail: SessionDetail, options: ConversationOptions = {}) {
    this.sessionId = detail.id;
    this.#options = options;
    this.entries = toEntries(detail, this.#withRuns(detail), this.#onSessionTitle);
    this.feedback = feedbackByMessage(detail);
  }

  readonly #onSessionTitle = (data: SessionTitleData): void => {
    if (data.sessionId === this.sessionId) this.#options.onTitle?.(data.title);
  };

  /** Rates answer `messageId` (a blank comment clears the comment); throws what the API said. */
  async rate(messageId: string, rating: FeedbackRating, comment?: string | null): Promise<void> {
    const rated = await rateAnswer(this.sessionId, messageId, { rating, comment });
    this.feedback = new Map(this.feedback).set(messageId, rated);
  }

  /** Takes the rating of answer `messageId` back. */
  async unrate(messageId: string): Promise<void> {
    await clearAnswerRating(this.sessionId, messageId);
    const next = new Map(this.feedback);
    next.delete(messageId);
    this.feedback = next;
  }

  /** Run outcomes as the newest session read has them (a run that was going at the last read has ended since). */
  #withRuns(detail: SessionDetail): Map<string, RunOutcome> {
    for (const run of detail.runs ?? []) this.#runs.set(run.id, run);
    return this.#runs;
  }

  /** Shows the session as `detail` reads, following its active run. */
  #show(detail: SessionDetail): void {
    this.destroy();
    this.entries = toEntries(detail, this.#withRuns(detail), this.#onSessionTitle);
    this.feedback = feedbackByMessage(detail);
    this.start();
  }

  async #change(action: () => Promise<SessionDetail | StartedRun>): Promise<boolean> {
    if (this.changing || this.sending || this.activeStream) return false;
    this.#generation += 1;
    this.#refollows = 0;
    this.changing = true;
    this.sendError = undefined;
    try {
      const result = await action();
      this.#show('messages' in result ? result : await getSession(this.sessionId));
      return true;
    } catch (caught) {
      this.sendError = describeError(caught);
      return false;
    } finally {
      this.changing = false;
    }
  }

  /**
   * Reads the session again once its run has ended (or its stream closed), so the new answer shows
   * with its versions (‹ 2/2 ›) and actions. Leaves the page alone while a run streams.
   */
  async refresh(): Promise<void> {
    if (this.activeStream || this.changing || this.sending) return;
    const generation = this.#generation;
    try {
      const detail = await getSession(this.sessionId);
      if (generation !== this.#generation || this.activeStream || this.sending || this.changing) return;
      // A stream that closed while its run still goes on (a dropped connection it gave up on) is
      // followed again, a few times at most, so the page never shows a run stuck mid-answer.
      if (detail.activeRunId && ++this.#refollows > MAX_REFOLLOWS) return;
      this.#show(detail);
    } catch {
      // The page keeps what it shows; the next load reads it again.
    }
  }

  /** Answers again in place of answer `messageId`; the old answer stays as a version. */
  regenerate(messageId: string, options: Omit<StartRunBody, 'content'>): Promise<boolean> {
    return this.#change(() => regenerateMessage(this.sessionId, messageId, options));
  }

  /** Sends `body.content` as a new version of user message `messageId`, on a branch of its own. */
  edit(messageId: string, body: StartRunBody): Promise<boolean> {
    return this.#change(() => editMessage(this.sessionId, messageId, body));
  }

  /** Stores `text` as a new version of answer `messageId` (the model's stays a version away). */
  revise(messageId: string, text: string): Promise<boolean> {
    return this.#change(() => reviseAnswer(this.sessionId, messageId, text));
  }

  /** Shows another version of a message (and the branch below it). */
  select(messageId: string): Promise<boolean> {
    return this.#change(() => selectVersion(this.sessionId, messageId));
  }

  /** Copies the conversation down to `messageId` into a new chat: its id, or undefined (`sendError` says why). */
  async fork(messageId: string): Promise<string | undefined> {
    this.sendError = undefined;
    try {
      return (await forkChat(this.sessionId, messageId)).id;
    } catch (caught) {
      this.sendError = describeError(caught);
      return undefined;
    }
  }

  /** The run currently streaming, if any (always the last turn). */
  get activeStream(): RunStream | undefined {
    const last = this.entries.at(-1);
    return last?.kind === 'assistant' && last.stream?.active ? last.stream : undefined;
  }

  /** Opens the event streams of live turns; call once the page is mounted. */
  start(): void {
    for (const entry of this.entries) if (entry.kind === 'assistant') entry.stream?.start();
  }

  /** Stops following every stream (leaving the page); runs go on server-side. */
  destroy(): void {
    for (const entry of this.entries) if (entry.kind === 'assistant') entry.stream?.close();
  }

  /**
   * Sends a message: shows it at once, starts the run, then follows its events.
   * @returns false when the API refused (the message is taken back and `sendError` says why).
   */
  async send(body: StartRunBody, files: AttachedFile[] = [], knowledge: KnowledgeChoice[] = []): Promise<boolean> {
    if (this.sending || this.activeStream) return false;
    this.#generation += 1;
    this.#refollows = 0;
    this.sending = true;
    this.sendError = undefined;
    this.stopError = undefined;
    const userEntry: UserEntry = { kind: 'user', id: `pending-${++this.#pendingCount}`, text: body.content, files, knowledge, pending: true, local: true };
    this.entries = [...this.entries, userEntry];
    try {
      const started = await startRun(this.sessionId, body);
      const stream = new RunStream(started.runId, { status: started.status, eventsUrl: started.eventsUrl, onSessionTitle: this.#onSessionTitle });
      const assistant: AssistantEntry = { kind: 'assistant', id: `run-${started.runId}`, runId: started.runId, message: undefined, run: undefined, stream };
      this.entries = [...this.entries.map((entry) => (entry === userEntry ? { ...userEntry, pending: false } : entry)), assistant];
      stream.start();
      return true;
    } catch (caught) {
      this.entries = this.entries.filter((entry) => entry !== userEntry);
      this.sendError = describeError(caught);
      const activeRunId = caught instanceof ApiError && caught.status === 409 ? caught.details.activeRunId : undefined;
      if (typeof activeRunId === 'string' && (await this.#followRun(activeRunId))) {
        this.sendError = t('chat.runElsewhere');
      }
      return false;
    } finally {
      this.sending = false;
    }
  }

  /**
   * Shows a run this page did not start (another tab, another device): the session is read again,
   * so the run's user message and its live stream both appear.
   * @returns false when the run is already shown or the session could not be read.
   */
  async #followRun(runId: string): Promise<boolean> {
    if (this.entries.some((entry) => entry.kind === 'assistant' && entry.runId === runId && entry.stream)) return false;
    let detail: SessionDetail;
    try {
      detail = await getSession(this.sessionId);
    } catch {
      return false;
    }
    this.#show(detail);
    return true;
  }

  /** Cancels the streaming run; the stream then ends as `cancelled` with the partial answer kept. */
  async stop(): Promise<void> {
    this.stopError = undefined;
    try {
      await this.activeStream?.stop();
    } catch (caught) {
      this.stopError = t('chat.stopFailed', { error: describeError(caught) });
    }
  }
}

/** The API's message, with its validation issues when it gave any ("content: Write a message"). */
export function describeError(caught: unknown): string {
  if (caught instanceof ApiError && caught.code === 'usage_limit') return usageLimitReachedText(caught.details);
  if (caught instanceof ApiError) {
    const issues = caught.issues.map((issue) => issueText(issue.message)).filter((message) => message && !caught.message.includes(message));
    return issues.length > 0 ? `${caught.message} (${issues.join('; ')})` : caught.message;
  }
  return caught instanceof Error && caught.message ? caught.message : t('common.somethingWrong');
}

function feedbackByMessage(detail: SessionDetail): Map<string, AnswerFeedback> {
  return new Map((detail.feedback ?? []).map((rating) => [rating.messageId, rating]));
}

function toEntries(detail: SessionDetail, runs: ReadonlyMap<string, RunOutcome>, onSessionTitle: (data: SessionTitleData) => void): ChatEntry[] {
  const entries: ChatEntry[] = [];
  let activeShown = false;
  const liveEntry = (runId: string): AssistantEntry => {
    activeShown = true;
    return { kind: 'assistant', id: `run-${runId}`, runId, message: undefined, run: undefined, stream: new RunStream(runId, { onSessionTitle }) };
  };

  const branch = detail.messages;
  for (const [index, message] of branch.entries()) {
    const next = branch[index + 1];
    if (message.role === 'user') {
      entries.push({ kind: 'user', id: message.id, text: messageText(message), files: messageFiles(message.parts), knowledge: chosenBasesOf(message.parts), pending: false, versions: message.versions });
      const liveHere = detail.activeRunId && (detail.activeRunReplyTo ? detail.activeRunReplyTo === message.id : message.runId === detail.activeRunId);
      if (liveHere) {
        // The active run answers this message: it streams here, in place of any earlier answer below.
        entries.push(liveEntry(detail.activeRunId!));
        break;
      }
      if (message.runId && next?.role !== 'assistant') {
        // A run that stored no answer (it failed before any output, or is gone): show its outcome.
        entries.push({ kind: 'assistant', id: `run-${message.runId}`, runId: message.runId, message: undefined, run: runs.get(message.runId), stream: undefined });
      }
    } else if (message.runId !== detail.activeRunId || !message.runId) {
      // The active run's message (if a finished attempt stored one) is replaced by the replay.
      entries.push({
        kind: 'assistant',
        id: message.id,
        runId: message.runId,
        message: { id: message.id, role: 'assistant', parts: message.parts },
        run: message.runId ? runs.get(message.runId) : undefined,
        stream: undefined,
        versions: message.versions,
      });
    }
  }
  if (detail.activeRunId && !activeShown) entries.push(liveEntry(detail.activeRunId));
  return entries;
}

/** A message's text, its other parts left out (what a question's bubble shows). */
export function messageText(message: Pick<SessionMessage, 'parts'>): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
