import { agentDocuments, type Database } from '@agentq/shared/db';
import { tokenCounter } from '@agentq/shared/tools';
import { and, desc, eq } from 'drizzle-orm';

/** The agent settings that decide whether and how much memory a run starts with. */
export type MemorySettings = { loadMemory: boolean; memoryTokenBudget: number };

/** How many memories are considered at most; the newest win when the budget is small. */
const MAX_MEMORIES = 100;

const MEMORY_HEADER = [
  '## What you remember about this user',
  "These are the user's saved memories from earlier conversations, newest first. Use them when they help; do not mention this list unless asked.",
  'To change or add a memory, use the document tool if you have it.',
].join('\n');

/**
 * The run's system prompt with the user's memory documents appended, when the agent loads memory:
 * the most recently updated memories first, each whole or cut, until `memoryTokenBudget` tokens are
 * spent. Returns `instructions` unchanged when the agent does not load memory or there is none.
 * @example const instructions = await withMemory(db, agent, run.userId, agent.systemPrompt);
 */
export async function withMemory(
  db: Database,
  agent: MemorySettings | undefined,
  userId: string | null,
  instructions: string | undefined,
): Promise<string | undefined> {
  if (!agent?.loadMemory || !userId) return instructions;
  const memories = await db
    .select({ id: agentDocuments.id, title: agentDocuments.title, content: agentDocuments.content, updatedAt: agentDocuments.updatedAt })
    .from(agentDocuments)
    .where(and(eq(agentDocuments.userId, userId), eq(agentDocuments.type, 'memory')))
    .orderBy(desc(agentDocuments.updatedAt), desc(agentDocuments.id))
    .limit(MAX_MEMORIES);
  if (memories.length === 0) return instructions;

  const tokens = await tokenCounter();
  let remaining = agent.memoryTokenBudget - tokens.count(MEMORY_HEADER);
  const sections: string[] = [];
  for (const memory of memories) {
    const heading = `### ${memory.title} (id ${memory.id}, updated ${memory.updatedAt.toISOString().slice(0, 10)})\n`;
    const headingTokens = tokens.count(heading);
    if (remaining - headingTokens < 20) break;
    const content = tokens.truncate(memory.content, remaining - headingTokens);
    const cut = content.length < memory.content.length;
    sections.push(`${heading}${content}${cut ? '\n[cut to fit the memory budget; read the document for the rest]' : ''}`);
    remaining -= headingTokens + tokens.count(content);
    if (cut) break;
  }
  if (sections.length === 0) return instructions;
  const memoryBlock = `${MEMORY_HEADER}\n\n${sections.join('\n\n')}`;
  return instructions ? `${instructions}\n\n${memoryBlock}` : memoryBlock;
}
