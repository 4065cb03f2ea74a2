import { asc } from 'drizzle-orm';
import type { Database } from '../db/client';
import { agents, agentToolAssociations, agentTools, llmModels } from '../db/schema';
import { cachedConfig, dropLocalConfig } from './config-cache';

/**
 * Every model, agent, association and tool: small admin-edited tables that every run reads. Rows
 * come in the order the loaders need (models and agents oldest first, tools by sort order then
 * name as PostgreSQL collates them), so lookups keep the database's ordering.
 */
export type AgentConfigSnapshot = {
  models: (typeof llmModels.$inferSelect)[];
  agents: (typeof agents.$inferSelect)[];
  associations: (typeof agentToolAssociations.$inferSelect)[];
  tools: (typeof agentTools.$inferSelect)[];
};

/** The snapshot, from this process's config cache when one is attached to `db` (four queries otherwise). */
export function loadAgentConfig(db: Database): Promise<AgentConfigSnapshot> {
  return cachedConfig(db, 'agent-config', async () => {
    const [models, agentRows, associations, tools] = await Promise.all([
      db.select().from(llmModels).orderBy(asc(llmModels.createdAt), asc(llmModels.id)),
      db.select().from(agents).orderBy(asc(agents.createdAt), asc(agents.id)),
      db.select().from(agentToolAssociations),
      db.select().from(agentTools).orderBy(asc(agentTools.sortOrder), asc(agentTools.name)),
    ]);
    return { models, agents: agentRows, associations, tools };
  });
}

/**
 * Looks something up in the snapshot; when it is missing, reloads once before answering, since a
 * row another process created a moment ago may be newer than this process's invalidation message.
 */
export async function findInAgentConfig<T>(db: Database, pick: (snapshot: AgentConfigSnapshot) => T | undefined): Promise<T | undefined> {
  const found = pick(await loadAgentConfig(db));
  if (found !== undefined || !dropLocalConfig(db)) return found;
  return pick(await loadAgentConfig(db));
}
