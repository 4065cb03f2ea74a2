export * from './errors';
export * from './passwords';
export * from './users';
