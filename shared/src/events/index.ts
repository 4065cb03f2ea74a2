export * from './data-parts';
export * from './run-event';
