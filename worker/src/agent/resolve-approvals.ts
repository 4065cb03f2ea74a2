import { approvalsForRun, expireApprovals, type Approval, type Run } from '@agentq/shared/services';
import type { ModelMessage } from 'ai';
import type { WorkerDeps } from '../processor';
import type { RunStream } from './open-run-stream';
import type { AwaitingApprovals } from './park-for-approval';

const byId = (rows: Approval[]) => new Map(rows.map((row) => [row.id, row]));

/**
 * Turns decided approvals into the AI SDK's tool-approval-response message (edited input applied
 * to the call in history) and tells followers; also returns the tools a decision allowed for the
 * rest of the session. Returns null while any approval is still pending and unexpired.
 */
export async function resolveApprovals(
  deps: WorkerDeps,
  options: { run: Run; stream: RunStream; history: ModelMessage[]; awaiting: AwaitingApprovals; rows?: Promise<Approval[]> },
): Promise<{ history: ModelMessage[]; remembered: string[] } | null> {
  const { run, stream, history, awaiting } = options;
  let rows = byId(await (options.rows ?? approvalsForRun(deps.db, run.id)));
  const pending = () => awaiting.filter((entry) => rows.get(entry.approvalId)?.status === 'pending');
  // Woken by the earliest expiry rather than a decision: record the expired ones, then read again.
  const now = Date.now();
  if (pending().some((entry) => rows.get(entry.approvalId)!.expiresAt.getTime() <= now)) {
    await expireApprovals(deps.db, run.id, new Date(now));
    rows = byId(await approvalsForRun(deps.db, run.id));
  }
  if (pending().length > 0) return null;
  const edits = new Map<string, unknown>();
  const responses = awaiting.map((entry) => {
    const row = rows.get(entry.approvalId)!;
    const approved = row.status === 'approved';
    if (approved && row.editedInput !== null && row.editedInput !== undefined) edits.set(entry.toolCallId, row.editedInput);
    const reason = row.status === 'expired' ? 'expired: nobody approved this tool call in time' : (row.reason ?? undefined);
    stream.emit({
      type: 'data-approval-response',
      id: `${row.id}-response`,
      data: { approvalId: row.id, toolCallId: entry.toolCallId, status: row.status as 'approved' | 'denied' | 'expired', reason: row.reason ?? undefined, decidedBy: row.decidedBy ?? undefined, editedInput: row.editedInput ?? undefined, ...(row.remember ? { remember: true } : {}) },
    });
    return { type: 'tool-approval-response' as const, approvalId: entry.sdkApprovalId, approved, reason: approved ? undefined : reason };
  });
  const withEdits = history.map((message) =>
    message.role === 'assistant' && Array.isArray(message.content)
      ? { ...message, content: message.content.map((part) => (part.type === 'tool-call' && edits.has(part.toolCallId) ? { ...part, input: edits.get(part.toolCallId) } : part)) }
      : message,
  ) as ModelMessage[];
  // The decision and its session grant are one statement, so these are exactly the grants it added.
  const remembered = awaiting.map((entry) => rows.get(entry.approvalId)!).filter((row) => row.status === 'approved' && row.remember).map((row) => row.toolName);
  return { history: [...withEdits, { role: 'tool' as const, content: responses }] as ModelMessage[], remembered };
}
