import type { JobPayload } from '@agentq/shared/queues';
import { EmbeddingFailedError, ingestKnowledgeFile, markKnowledgeFileFailed, type IngestOutcome } from '@agentq/shared/services';
import type { Job } from 'bullmq';
import type { WorkerDeps } from '../processor';

/**
 * Reads (a web page's file: fetches first), chunks and embeds one knowledge-base file (services/knowledge/ingest.ts). An
 * embedding call that fails throws while attempts remain, so BullMQ retries with backoff; the last
 * attempt, or a file without readable text, completes the job with the file marked failed.
 */
export async function processKnowledgeIngestion(job: Job<JobPayload<'knowledgeIngestions', 'knowledge-ingestion'>>, deps: WorkerDeps): Promise<IngestOutcome> {
  const attempt = job.attemptsMade + 1;
  const finalAttempt = attempt >= (job.opts.attempts ?? 1);
  let outcome: IngestOutcome;
  try {
    outcome = await ingestKnowledgeFile(deps.db, job.data.fileId, { appSecret: deps.config.appSecret, finalAttempt, refetch: job.data.refetch, allowPrivateNetworks: deps.allowPrivateNetworks });
  } catch (error) {
    // The last attempt of an unexpected failure (the database away): say so rather than leave the file processing for good.
    if (finalAttempt && !(error instanceof EmbeddingFailedError)) await markKnowledgeFileFailed(deps.db, job.data.fileId, 'The file could not be processed; remove it and upload it again').catch(() => {});
    throw error;
  }
  // Ids and counts only: never the file's text.
  deps.logger.info({ fileId: job.data.fileId, attempt, status: outcome.status, ...(outcome.status === 'ready' && { chunkCount: outcome.chunkCount, embedded: outcome.embedded }), ...(outcome.status === 'failed' && { error: outcome.error }) }, 'knowledge file ingested');
  return outcome;
}
