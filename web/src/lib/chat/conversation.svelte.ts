import type { UIMessage } from 'ai';
import { ApiError, apiFetch } from '../api.ts';
import type { StartRunBody } from './chat-settings.svelte.ts';
import { RunStream } from './run-stream.svelte.ts';
import type { RunView, SessionDetail, SessionMessage, StartedRun } from './types.ts';

export type UserEntry = { kind: 'user'; id: string; text: string; pending: boolean };

/** An assistant turn: a stored message with its run's outcome, or a live `RunStream`. */
export type AssistantEntry = {
  kind: 'assistant';
  id: string;
  runId: string | null;
  /** The stored message; undefined for a run that produced nothing (its run says why). */
  message: UIMessage | undefined;
  /** The run's outcome, when it could be read. */
  run: RunView | undefined;
  stream: RunStream | undefined;
};

export type ChatEntry = UserEntry | AssistantEntry;

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
  #pendingCount = 0;
  readonly #runs: ReadonlyMap<string, RunView>;

  constructor(detail: SessionDetail, runs: ReadonlyMap<string, RunView>) {
    this.sessionId = detail.id;
    this.#runs = runs;
    this.entries = toEntries(detail, runs);
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
  async send(body: StartRunBody): Promise<boolean> {
    if (this.sending || this.activeStream) return false;
    this.sending = true;
    this.sendError = undefined;
    this.stopError = undefined;
    const userEntry: UserEntry = { kind: 'user', id: `pending-${++this.#pendingCount}`, text: body.content, pending: true };
    this.entries = [...this.entries, userEntry];
    try {
      const started = await apiFetch<StartedRun>(`/api/sessions/${encodeURIComponent(this.sessionId)}/runs`, { method: 'POST', json: body });
      const stream = new RunStream(started.runId, { status: started.status, eventsUrl: started.eventsUrl });
      const assistant: AssistantEntry = { kind: 'assistant', id: `run-${started.runId}`, runId: started.runId, message: undefined, run: undefined, stream };
      this.entries = [...this.entries.map((entry) => (entry === userEntry ? { ...userEntry, pending: false } : entry)), assistant];
      stream.start();
      return true;
    } catch (caught) {
      this.entries = this.entries.filter((entry) => entry !== userEntry);
      this.sendError = describeError(caught);
      const activeRunId = caught instanceof ApiError && caught.status === 409 ? caught.details.activeRunId : undefined;
      if (typeof activeRunId === 'string' && (await this.#followRun(activeRunId))) {
        this.sendError = 'A run is already going in this session (started elsewhere); it is shown above. Send your message once it has finished.';
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
      detail = await apiFetch<SessionDetail>(`/api/sessions/${encodeURIComponent(this.sessionId)}`);
    } catch {
      return false;
    }
    this.destroy();
    this.entries = toEntries(detail, this.#runs);
    this.start();
    return true;
  }

  /** Cancels the streaming run; the stream then ends as `cancelled` with the partial answer kept. */
  async stop(): Promise<void> {
    this.stopError = undefined;
    try {
      await this.activeStream?.stop();
    } catch (caught) {
      this.stopError = `Could not stop the run: ${describeError(caught)}`;
    }
  }
}

/** The API's message, with its validation issues when it gave any ("content: Write a message"). */
export function describeError(caught: unknown): string {
  if (caught instanceof ApiError) {
    const issues = caught.issues.map((issue) => issue.message).filter((message) => message && !caught.message.includes(message));
    return issues.length > 0 ? `${caught.message} (${issues.join('; ')})` : caught.message;
  }
  return caught instanceof Error && caught.message ? caught.message : 'Something went wrong. Please try again.';
}

function toEntries(detail: SessionDetail, runs: ReadonlyMap<string, RunView>): ChatEntry[] {
  const answered = new Set(detail.messages.filter((message) => message.role === 'assistant' && message.runId).map((message) => message.runId));
  const entries: ChatEntry[] = [];
  let activeShown = false;
  const liveEntry = (runId: string): AssistantEntry => {
    activeShown = true;
    return { kind: 'assistant', id: `run-${runId}`, runId, message: undefined, run: undefined, stream: new RunStream(runId) };
  };

  for (const message of detail.messages) {
    if (message.role === 'user') {
      entries.push({ kind: 'user', id: message.id, text: textOf(message), pending: false });
      if (!message.runId) continue;
      if (message.runId === detail.activeRunId) entries.push(liveEntry(message.runId));
      else if (!answered.has(message.runId)) {
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
      });
    }
  }
  if (detail.activeRunId && !activeShown) entries.push(liveEntry(detail.activeRunId));
  return entries;
}

function textOf(message: SessionMessage): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
