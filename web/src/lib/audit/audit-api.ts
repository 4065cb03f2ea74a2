/** The audit log as admins read it (`GET /api/admin/audit`). */
import { AUDIT_CATEGORIES, type AuditCategory } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption, type RouteOutput } from '../api-routes.ts';
import type { DayWindow } from '../day-window.ts';

export { dayWindow } from '../day-window.ts';

export type AuditPage = RouteOutput<'/admin/audit', '$get'>;
export type AuditEvent = AuditPage['items'][number];

export { AUDIT_CATEGORIES, type AuditCategory } from '@agentq/shared/api-types';

export type AuditQuery = DayWindow & { action?: string | undefined; actorUserId?: string | undefined; limit?: number; cursor?: string | null };

/** The latest events first, a page at a time. */
export function listAuditEvents(query: AuditQuery, options: FetchOption = {}): Promise<AuditPage> {
  return apiFetch(`/api/admin/audit${queryString(query)}`, options);
}

/** The page's URL for a view: the category, the actor, the days (`YYYY-MM-DD`, inclusive). */
export function auditViewUrl(view: { category?: string | null | undefined; actor?: string | null | undefined; from?: string | null | undefined; to?: string | null | undefined }): string {
  return `/admin/audit${queryString({ category: view.category || undefined, actor: view.actor || undefined, from: view.from || undefined, to: view.to || undefined })}`;
}

export function isAuditCategory(value: string | null): value is AuditCategory {
  return (AUDIT_CATEGORIES as readonly (string | null)[]).includes(value);
}
