export * from './define-queue';
export * from './catalog';
export * from './queues';
export * from './job-waiter';
export * from './worker-heartbeat';
export * from './run-jobs';
export * from './schedule-jobs';
