/**
 * The conversation tree as branches. Messages form a tree (`parentId`); where it forks (a regenerated
 * answer, an edited question) the shown child is the one chosen last: the newest of
 * `selectedAt ?? createdAt`. Pure functions over rows, shared by the API (what to show) and the worker
 * (what the model reads).
 */
export type ThreadNode = { id: string; parentId: string | null; createdAt: Date; selectedAt: Date | null };

/** Where a message sits among its versions (its siblings, oldest first): "‹ 2/3 ›". */
export type MessageVersions = { index: number; count: number; ids: string[] };

function choiceTime(node: ThreadNode): number {
  return (node.selectedAt ?? node.createdAt).getTime();
}

/** Children per parent id ('' for the roots), oldest first. */
export function childrenByParent<T extends ThreadNode>(nodes: readonly T[]): Map<string, T[]> {
  const children = new Map<string, T[]>();
  const known = new Set(nodes.map((node) => node.id));
  for (const node of nodes) {
    // A parent that is gone (never expected) makes its child a root rather than unreachable.
    const key = node.parentId && known.has(node.parentId) ? node.parentId : '';
    const list = children.get(key) ?? [];
    list.push(node);
    children.set(key, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  return children;
}

function chosen<T extends ThreadNode>(siblings: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const node of siblings) if (!best || choiceTime(node) >= choiceTime(best)) best = node;
  return best;
}

/** The branch shown: from the first message, the chosen child at every fork; each with its versions. */
export function activeBranch<T extends ThreadNode>(nodes: readonly T[]): { node: T; versions: MessageVersions }[] {
  const children = childrenByParent(nodes);
  const branch: { node: T; versions: MessageVersions }[] = [];
  let siblings = children.get('') ?? [];
  const seen = new Set<string>();
  for (let node = chosen(siblings); node && !seen.has(node.id); node = chosen(siblings)) {
    seen.add(node.id);
    branch.push({ node, versions: { index: siblings.indexOf(node) + 1, count: siblings.length, ids: siblings.map((sibling) => sibling.id) } });
    siblings = children.get(node.id) ?? [];
  }
  return branch;
}

/** The messages from the first one down to `leafId` (inclusive), oldest first; empty if it is unknown. */
export function pathTo<T extends ThreadNode>(nodes: readonly T[], leafId: string): T[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const path: T[] = [];
  const seen = new Set<string>();
  for (let node = byId.get(leafId); node && !seen.has(node.id); node = node.parentId ? byId.get(node.parentId) : undefined) {
    seen.add(node.id);
    path.push(node);
  }
  return path.reverse();
}
