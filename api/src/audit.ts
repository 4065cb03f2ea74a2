import { recordAudit, type AuditEntry } from '@agentq/shared/services';
import type { Context } from 'hono';
import type { AppEnv } from './deps';
import { currentUser } from './middleware/auth';

/** Records what the signed-in user just did (the audit log, shared/src/services/audit.ts). */
export function audit(c: Context<AppEnv>, entry: Omit<AuditEntry, 'actorUserId'>): Promise<void> {
  return recordAudit(c.get('db'), { actorUserId: currentUser(c).id, ...entry });
}
