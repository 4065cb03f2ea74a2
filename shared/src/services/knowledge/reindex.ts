import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { knowledgeFiles } from '../../db/schema';
import { loadAgentConfig } from '../agent-config';
import { flaggedModel } from '../flagged-model';

/** The model id of the enabled model flagged "Embeds text" (no key read), or null. */
export async function currentEmbeddingModelId(db: Database): Promise<string | null> {
  const { models } = await loadAgentConfig(db);
  return flaggedModel(models, 'embedsText')?.modelId ?? null;
}

export type ReindexOutcome = { queued: number; embeddingModel: string | null };

/**
 * Processes again the files of one base (or of every base, for an admin) whose passages the current
 * embedding model did not embed (added before it was set up, or embedded by another model), and the
 * files that failed. They show `processing` until their job ends; their old passages stay searchable
 * until the new ones replace them. `enqueue` adds one job per file id; when it throws, the files go
 * back to what they were and the error is passed on. Without an embedding model only failed files
 * are retried. A file already processing is left alone, so a second click queues nothing twice.
 */
export async function reindexKnowledgeFiles(db: Database, scope: { baseId: string } | 'all', enqueue: (fileIds: string[]) => Promise<void>): Promise<ReindexOutcome> {
  const embeddingModel = await currentEmbeddingModelId(db);
  const due = or(eq(knowledgeFiles.status, 'failed'), embeddingModel ? and(eq(knowledgeFiles.status, 'ready'), sql`${knowledgeFiles.embeddingModel} is distinct from ${embeddingModel}`) : sql`false`);
  const where = scope === 'all' ? due : and(eq(knowledgeFiles.baseId, scope.baseId), due);
  const before = await db.select({ id: knowledgeFiles.id, status: knowledgeFiles.status, error: knowledgeFiles.error }).from(knowledgeFiles).where(where);
  if (before.length === 0) return { queued: 0, embeddingModel };
  // Only those still as read: one changed meanwhile (deleted, or queued by another click) is not queued.
  const marked = await db
    .update(knowledgeFiles)
    .set({ status: 'processing', error: null })
    .where(and(inArray(knowledgeFiles.id, before.map((file) => file.id)), where))
    .returning({ id: knowledgeFiles.id });
  const ids = marked.map((file) => file.id);
  if (ids.length === 0) return { queued: 0, embeddingModel };
  try {
    await enqueue(ids);
  } catch (error) {
    const byId = new Map(before.map((file) => [file.id, file]));
    await Promise.all(
      ids.map((id) =>
        db
          .update(knowledgeFiles)
          .set({ status: byId.get(id)!.status, error: byId.get(id)!.error })
          .where(and(eq(knowledgeFiles.id, id), eq(knowledgeFiles.status, 'processing'))),
      ),
    ).catch(() => {});
    throw error;
  }
  return { queued: ids.length, embeddingModel };
}
