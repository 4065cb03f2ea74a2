export * from './data-parts';
export * from './run-event';
export * from './message-to-chunks';
export * from './run-timeline';
export * from './step-limit';
export * from './step-retry';
export * from './sources';
