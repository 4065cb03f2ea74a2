import type { Database } from '../../db/client';
import { loadAgentConfig } from '../agent-config';
import type { LlmModelWithKey } from '../models';
import { getModelWithKey } from '../models';
import { inAllowedGroups, mayPickModel, type Accessor } from '../groups/access';

type TranscriberFlags = { enabled: boolean; transcribesSpeech: boolean; adminsOnly: boolean; groupIds: readonly string[] };

/**
 * The rule, in one place: dictation uses the one enabled model flagged "Transcribes speech" (the
 * flag is exclusive, as the default's is), and a model for admins only serves admins alone, one
 * limited to groups their members (and admins).
 */
export function offersDictation(models: readonly TranscriberFlags[], who: Accessor): boolean {
  return models.some((model) => model.enabled && model.transcribesSpeech && mayPickModel(model, who));
}

export type TranscriptionModelLookup =
  | { ok: true; model: LlmModelWithKey }
  | { ok: false; reason: 'none' | 'admins-only' | 'not-in-groups' };

/**
 * The transcription model this user may use, with its decrypted key (for the upstream call only;
 * never send it to a client). Read through the config cache, as a run's model is.
 * @throws {SecretDecryptionError} when APP_SECRET is not the one the key was stored with.
 */
export async function findTranscriptionModel(db: Database, asker: Accessor, appSecret: string): Promise<TranscriptionModelLookup> {
  const { models } = await loadAgentConfig(db);
  const row = models.find((model) => model.enabled && model.transcribesSpeech);
  if (!row) return { ok: false, reason: 'none' };
  if (row.adminsOnly && !asker.isAdmin) return { ok: false, reason: 'admins-only' };
  if (!inAllowedGroups(row, asker)) return { ok: false, reason: 'not-in-groups' };
  return { ok: true, model: await getModelWithKey(db, row.id, appSecret) };
}
