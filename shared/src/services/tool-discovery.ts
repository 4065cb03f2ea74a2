import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Database } from '../db/client';
import { agentTools } from '../db/schema';
import { getToolType } from '../tools/registry';
import { invalidateConfig } from './config-cache';
import { NotFoundError } from './errors';
import { openToolSecrets } from './tool-secrets';
import type { AgentTool } from './tools';

/** What discovery needs from the process: the secret key and the network policy (FETCH_ALLOW_PRIVATE_NETWORKS). */
export type ToolDiscoveryOptions = {
  appSecret?: string;
  allowPrivateNetworks?: boolean;
  /** Extra dependencies for types, e.g. `mcpStdioCommands` (MCP_STDIO_COMMANDS). */
  services?: Record<string, unknown>;
  /** Upper bound for one discovery (default 20 s). */
  timeoutMs?: number;
};

export type DiscoveryOutcome = { tool: AgentTool; error: string | null };

const DEFAULT_DISCOVERY_TIMEOUT_MS = 20_000;

/** Whether instances of this type ask a server what they offer. */
export function discoversTools(type: string): boolean {
  return getToolType(type).discover !== undefined;
}

/**
 * Asks the instance's server what it offers and stores the snapshot. A server that is down, refuses or
 * answers garbage leaves the last good snapshot in place and records why in `discoveryError`.
 */
export async function refreshToolDiscovery(db: Database, tool: AgentTool, options: ToolDiscoveryOptions): Promise<DiscoveryOutcome> {
  const toolType = getToolType(tool.type);
  if (!toolType.discover) return { tool, error: null };
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  let error: string | null = null;
  let changes: Partial<typeof agentTools.$inferInsert>;
  try {
    const config = (toolType.configSchema as z.ZodType).parse(tool.config);
    const signal = AbortSignal.timeout(timeoutMs);
    const discovery = await Promise.race([
      toolType.discover(config, {
        signal,
        allowPrivateNetworks: options.allowPrivateNetworks ?? false,
        secrets: openToolSecrets(tool, options.appSecret),
        services: options.services ?? {},
      }),
      new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error(`no answer within ${timeoutMs} ms`)))),
    ]);
    changes = { discovery, discoveryError: null };
  } catch (caught) {
    error = `Discovery failed: ${caught instanceof Error ? caught.message : String(caught)}`.slice(0, 2000);
    changes = { discoveryError: error };
  }
  const [updated] = await db.update(agentTools).set(changes).where(eq(agentTools.id, tool.id)).returning();
  if (!updated) throw new NotFoundError('Tool', tool.id);
  // Every process reads tools through its config cache: a new snapshot must reach the workers.
  await invalidateConfig(db);
  return { tool: updated, error };
}
