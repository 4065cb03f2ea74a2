import { createHash } from 'node:crypto';
import type { WebhookEventType } from '../../api-types/webhooks';
import type { RunStatus } from '../../db/schema';
import { newId } from '../../ids';
import type { WebhookEvent } from '../../queues/catalog';

/** Longest answer text a `run.completed` body carries; a longer one is cut and flagged. */
export const WEBHOOK_ANSWER_MAX_CHARS = 32_000;

/**
 * A stable event id for something that happens once (a run's end, an approval's request): a run end
 * written twice (a retried job) makes the same event, whose deliveries BullMQ then adds once.
 */
function eventIdOf(type: WebhookEventType, subjectId: string): string {
  return `evt_${createHash('sha256').update(`${type}\n${subjectId}`).digest('hex').slice(0, 24)}`;
}

/** The delivery of an event to an endpoint: stable too, so it is its job's id. */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return `whd_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 24)}`;
}

const RUN_END_EVENTS = { succeeded: 'run.completed', failed: 'run.failed', cancelled: 'run.cancelled' } as const satisfies Partial<Record<RunStatus, WebhookEventType>>;

/** The event type a terminal status announces. */
export function runEndEventType(status: keyof typeof RUN_END_EVENTS): WebhookEventType {
  return RUN_END_EVENTS[status];
}

type RunSummary = { id: string; kind: string; status: RunStatus; sessionId: string | null; finishReason?: string | null };

/** `run.completed` / `run.failed` / `run.cancelled`: the run, its answer (completed) or its error (failed). */
export function runEndedEvent(run: RunSummary & { status: keyof typeof RUN_END_EVENTS }, outcome: { answer?: string; error?: string | null; steps?: number }): WebhookEvent {
  const type = runEndEventType(run.status);
  const answer = outcome.answer ?? '';
  const truncated = answer.length > WEBHOOK_ANSWER_MAX_CHARS;
  return {
    id: eventIdOf(type, run.id),
    type,
    createdAt: new Date().toISOString(),
    data: {
      run: {
        id: run.id,
        kind: run.kind,
        status: run.status,
        sessionId: run.sessionId,
        finishReason: run.finishReason ?? null,
        ...(outcome.steps !== undefined && { steps: outcome.steps }),
        ...(run.status === 'succeeded' && { answer: truncated ? answer.slice(0, WEBHOOK_ANSWER_MAX_CHARS) : answer, answerTruncated: truncated }),
        ...(run.status === 'failed' && { error: outcome.error ?? null }),
      },
    },
  };
}

/** `approval.requested`: a tool call of the run waits for the user's decision (POST /api/approvals/:id). */
export function approvalRequestedEvent(run: Omit<RunSummary, 'status'>, approval: { id: string; toolName: string; toolCallId: string; input: unknown; expiresAt: Date }): WebhookEvent {
  return {
    id: eventIdOf('approval.requested', approval.id),
    type: 'approval.requested',
    createdAt: new Date().toISOString(),
    data: {
      run: { id: run.id, kind: run.kind, status: 'awaiting_approval', sessionId: run.sessionId },
      approval: { id: approval.id, toolName: approval.toolName, toolCallId: approval.toolCallId, input: approval.input ?? null, expiresAt: approval.expiresAt.toISOString(), decideUrl: `/api/approvals/${approval.id}` },
    },
  };
}

/** `ping`: what "Send test event" sends. */
export function pingEvent(endpointId: string): WebhookEvent {
  return { id: newId('webhookEvent'), type: 'ping', createdAt: new Date().toISOString(), data: { endpointId, message: 'Test event from agentq' } };
}
