import { listApprovals } from '#lib/approvals/approvals-api.ts';
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
    // Every pending one, the one whose time runs out first on top (however many were decided since
    // it was asked); then the latest decisions.
    const [pending, decided, names] = await Promise.all([
      listApprovals({ status: 'pending' }, { fetch }),
      listApprovals({ status: 'decided', limit: DECIDED_SHOWN }, { fetch }),
      userNames(user, fetch),
    ]);
    // Each row names its run's chat (sessionId), for "Open chat".
    return { pending: pending.items, decided: decided.items, decidedTotal: decided.total, names };
  } catch (caught) {
    throwPageError(caught, url);
  }
};

/** An admin sees everyone's approvals: name the owners and deciders. Others know only themselves. */
async function userNames(user: User, fetchImpl: typeof fetch): Promise<Map<string, string>> {
  if (user.role !== 'admin') return new Map();
  const { items } = await listUsers(fetchImpl).catch(() => ({ items: [] as User[] }));
  return new Map(items.map((candidate) => [candidate.id, candidate.name || candidate.email]));
}
