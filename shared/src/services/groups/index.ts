export * from './access';
export * from './groups';
