export * from './accounts';
export * from './claims';
export * from './pending-sign-ins';
export * from './provider';
export * from './settings';
