import type { Database } from '../db/client';
import { findFlaggedEndpoint, type ModelEndpoint } from './flagged-model';

/** Where pictures come from: the model flagged "Generates images". */
export type ImageEndpoint = ModelEndpoint;

/** The enabled model flagged "Generates images", with its decrypted key, or null. @throws {SecretDecryptionError} */
export function findImageModel(db: Database, appSecret: string): Promise<ImageEndpoint | null> {
  return findFlaggedEndpoint(db, appSecret, 'generatesImages');
}
