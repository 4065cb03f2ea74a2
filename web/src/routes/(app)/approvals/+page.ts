import { listApprovals } from '#lib/approvals/approvals-api.ts';
import { sessionsOfRuns } from '#lib/approvals/run-sessions.ts';
import { throwPageError } from '#lib/page-error.ts';
import { listUsers } from '#lib/users/users-api.ts';
import type { UserView as User } from '@agentq/shared/api-types';
import type { PageLoad } from './$types';

/** Decided approvals shown below the pending ones (the newest). */
const DECIDED_SHOWN = 50;

export const load: PageLoad = async ({ fetch, url, depends, parent }) => {
  // Invalidated after a decision here and whenever the pending count changes.
  depends('app:approvals');
  const { user } = await parent();
  try {
    const [approvals, names] = await Promise.all([listApprovals({}, { fetch }), userNames(user, fetch)]);
    // Pending first, the one whose time runs out first on top; then the latest decisions.
    const pending = approvals.filter((approval) => approval.status === 'pending').sort((a, b) => time(a.expiresAt) - time(b.expiresAt));
    const decided = approvals
      .filter((approval) => approval.status !== 'pending')
      .sort((a, b) => time(b.decidedAt ?? b.createdAt) - time(a.decidedAt ?? a.createdAt));
    const shown = decided.slice(0, DECIDED_SHOWN);
    const sessions = await sessionsOfRuns([...pending, ...shown].map((approval) => approval.runId), fetch);
    return { pending, decided: shown, decidedTotal: decided.length, sessions, names };
  } catch (caught) {
    throwPageError(caught, url);
  }
};

function time(iso: string): number {
  return new Date(iso).getTime() || 0;
}

/** An admin sees everyone's approvals: name the owners and deciders. Others know only themselves. */
async function userNames(user: User, fetchImpl: typeof fetch): Promise<Map<string, string>> {
  if (user.role !== 'admin') return new Map();
  const { items } = await listUsers(fetchImpl).catch(() => ({ items: [] as User[] }));
  return new Map(items.map((candidate) => [candidate.id, candidate.name || candidate.email]));
}
