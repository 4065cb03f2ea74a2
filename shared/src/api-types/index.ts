/** Request schemas and response types of the HTTP API; zod only, safe in the browser. */
export * from './users';
export * from './human-errors';
export * from './views';
export * from './webhooks';
export * from './browser-sessions';
export * from './next-path';
export * from './sso';
export * from './audit';
export * from './groups';
export * from './usage-limits';
export * from './models';
export * from './banners';
export * from './chat-tags';
