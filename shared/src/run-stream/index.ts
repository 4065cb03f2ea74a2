export * from './keys';
export * from './publisher';
export * from './reader';
export * from './hub';
export * from './control';
