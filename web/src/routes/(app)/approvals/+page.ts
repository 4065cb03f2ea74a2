import { listApprovals, type ApprovalList } from '#lib/approvals/approvals-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Decided approvals shown below the pending ones (the newest). */
const DECIDED_SHOWN = 50;

export const load: PageLoad = async ({ fetch, url, depends }) => {
  // Invalidated after a decision here and whenever the pending count changes.
  depends('app:approvals');
  try {
    // Every pending one, the one whose time runs out first on top (however many were decided since
    // it was asked); then the latest decisions.
    const [pending, decided] = await Promise.all([listApprovals({ status: 'pending' }, { fetch }), listApprovals({ status: 'decided', limit: DECIDED_SHOWN }, { fetch })]);
    // Each row names its run's chat (sessionId), for "Open chat".
    return { pending: pending.items, decided: decided.items, decidedTotal: decided.total, names: userNames([...pending.items, ...decided.items]) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};

/**
 * Who asked and who decided, by user id. An admin sees everyone's approvals and the API names
 * their owners and deciders; other viewers see only their own, with no names beside.
 */
function userNames(approvals: ApprovalList['items']): Map<string, string> {
  const names = new Map<string, string>();
  for (const approval of approvals) {
    if (approval.userName) names.set(approval.userId, approval.userName);
    if (approval.decidedBy && approval.decidedByName) names.set(approval.decidedBy, approval.decidedByName);
  }
  return names;
}
