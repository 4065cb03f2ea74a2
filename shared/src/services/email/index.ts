export * from './smtp-settings';
export * from './send-email';
export * from './templates';
export * from './email-tokens';
export * from './account-emails';
