import { agentTools, type Database } from '@agentq/shared/db';
import { createTool } from '@agentq/shared/services';
import { count } from 'drizzle-orm';

/** What a fresh install offers: web fetch, calculator, date/time, a JavaScript sandbox, and a document tool agents keep memories with. */
const STARTER_TOOLS = [
  { name: 'Web fetch', slug: 'web_fetch', type: 'fetch', sortOrder: 0 },
  { name: 'Calculator', slug: 'calculator', type: 'calculator', sortOrder: 10 },
  { name: 'Date and time', slug: 'datetime', type: 'datetime', sortOrder: 20 },
  { name: 'Code (JavaScript)', slug: 'code', type: 'code', sortOrder: 25 },
  { name: 'Documents and memory', slug: 'documents', type: 'document', sortOrder: 30 },
] as const;

/**
 * On a database without any tool, creates the starter tools (each with its type's default config)
 * and returns how many; an install that already has tools is left alone, even if some were deleted.
 */
export async function ensureStarterTools(db: Database): Promise<number> {
  const [tools] = await db.select({ value: count() }).from(agentTools);
  if ((tools?.value ?? 0) > 0) return 0;
  for (const tool of STARTER_TOOLS) {
    await createTool(db, { ...tool, description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, config: {} });
  }
  return STARTER_TOOLS.length;
}
