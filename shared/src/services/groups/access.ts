/**
 * Who may use a model or an agent, decided from what the caller already holds (the API's cached
 * user, the config cache's snapshot), so the decision itself reads nothing.
 */

/** Whoever asks: whether they are an admin and the groups they are in. */
export type Accessor = { isAdmin?: boolean; groupIds?: readonly string[] };

/** A model or an agent: the groups it is limited to (empty: everyone). */
export type GroupLimited = { groupIds: readonly string[] };

/** Admins always; anyone when it names no group; else a member of one of its groups. */
export function inAllowedGroups(resource: GroupLimited, who: Accessor): boolean {
  if (who.isAdmin || resource.groupIds.length === 0) return true;
  const mine = who.groupIds ?? [];
  return resource.groupIds.some((id) => mine.includes(id));
}

/** A model someone may pick for a chat: not for admins only unless they are one, and in its groups. */
export function mayPickModel(model: GroupLimited & { adminsOnly: boolean }, who: Accessor): boolean {
  return (who.isAdmin === true || !model.adminsOnly) && inAllowedGroups(model, who);
}

/** An agent someone may chat with: in its groups (its model is the admin's choice and stands). */
export function mayUseAgent(agent: GroupLimited, who: Accessor): boolean {
  return inAllowedGroups(agent, who);
}
