import type { ApprovalResponseData } from '@agentq/shared/events';
import { issueText } from '../forms/issue-text.ts';
import { t } from '../i18n/i18n.svelte.ts';
import type { Approval, ApprovalOutcome } from './types.ts';

/** The outcome an approval row records; undefined while it is still pending. */
export function outcomeOfApproval(approval: Approval): ApprovalOutcome | undefined {
  if (approval.status === 'pending') return undefined;
  return {
    status: approval.status,
    reason: approval.reason ?? undefined,
    decidedBy: approval.decidedBy ?? undefined,
    decidedAt: approval.decidedAt ?? undefined,
    editedInput: approval.editedInput ?? undefined,
    remember: approval.remember,
  };
}

/** The outcome a run's `data-approval-response` part carries (it survives a reload with the message). */
export function outcomeOfResponse(response: ApprovalResponseData): ApprovalOutcome {
  return {
    status: response.status,
    reason: response.reason,
    decidedBy: response.decidedBy,
    editedInput: response.editedInput,
    ...(response.remember ? { remember: true } : {}),
  };
}

/**
 * The reason worth showing: what the approver wrote, or why the approval ended without one
 * (a cancelled run). The worker's bare "expired" marker repeats the status and is left out.
 */
export function reasonToShow(outcome: ApprovalOutcome): string | undefined {
  const reason = outcome.reason?.trim();
  if (!reason || (outcome.status === 'expired' && reason === 'expired')) return undefined;
  return reason;
}

/** Who decided, for "Approved by …": the viewer is "you"; known names are used; else "another user". */
export function describeDecider(decidedBy: string | undefined, viewerId: string | undefined, names?: ReadonlyMap<string, string>): string | undefined {
  if (!decidedBy) return undefined;
  if (decidedBy === viewerId) return t('approval.you');
  return names?.get(decidedBy) ?? t('approval.anotherUser');
}

/** "4:05" under an hour, "2 h 5 min" above; 0 once the time is up. */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds >= 3600) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  }
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Reads the approver's edited input. Only the JSON syntax is judged here; whether it fits the
 * tool's input schema is the API's call (a 400 with the issues).
 */
export function parseEditedInput(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!text.trim()) return { ok: false, error: t('approval.enterJson') };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (caught) {
    return { ok: false, error: t('approval.invalidJson', { error: caught instanceof Error ? caught.message : String(caught) }) };
  }
}

/** A 400's issues as "url: Invalid URL", without the `input` prefix the API adds to edited-input paths. */
export function describeInputIssue(issue: { path: (string | number)[]; message: string }): string {
  const path = issue.path[0] === 'input' ? issue.path.slice(1) : issue.path;
  return path.length > 0 ? `${path.join('.')}: ${issueText(issue.message)}` : issueText(issue.message);
}
