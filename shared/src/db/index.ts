export * from './client';
export { isPostgresNullSocketFault, recoverFromPostgresDriverFault } from './postgres/driver-fault';
export * as schema from './schema';
export * from './schema';
