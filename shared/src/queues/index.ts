export * from './define-queue';
export * from './catalog';
export * from './queues';
