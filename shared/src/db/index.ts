export * from './client';
export { isPostgresNullSocketFault, recoverFromPostgresDriverFault } from './postgres/driver-fault';
export { preparedQuery } from './prepared-query';
export * as schema from './schema';
export * from './schema';
