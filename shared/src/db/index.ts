export * from './client';
export { isPostgresNullSocketFault, recoverFromPostgresDriverFault } from './postgres/driver-fault';
export { preparedQuery } from './prepared-query';
export { commitOnLane, laneFlushed, setSynchronousCommit, type SynchronousCommit } from './commit-lane';
export * as schema from './schema';
export * from './schema';
