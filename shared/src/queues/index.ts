export * from './define-queue';
export * from './catalog';
export * from './queues';
export * from './job-waiter';
