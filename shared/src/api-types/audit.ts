/** The kinds of action the audit log records, by what they act on: the API filters by them, the admin page offers them. */
export const AUDIT_CATEGORIES = ['auth', 'user', 'group', 'api-token', 'approval', 'model', 'agent', 'tool', 'chat', 'webhook', 'usage-limit', 'banner', 'prompt', 'knowledge'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];
