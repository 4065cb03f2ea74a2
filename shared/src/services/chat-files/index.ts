export * from './chat-files';
export * from './judge-upload';
export { MAX_PDF_PAGES } from './pdf-text';
