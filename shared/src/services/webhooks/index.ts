export * from './check-url';
export * from './deliveries';
export * from './emit';
export * from './endpoints';
export * from './events';
export * from './send-webhook';
export * from './signature';
export * from './subscriptions';
