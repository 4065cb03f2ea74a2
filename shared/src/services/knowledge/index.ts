export * from './chunk-text';
export * from './embeddings';
export * from './ingest';
export * from './knowledge-bases';
export * from './search';
export * from './reindex';
