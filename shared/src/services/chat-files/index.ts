export * from './chat-files';
export * from './judge-upload';
export { closePdfTextThreads, MAX_PDF_PAGES } from './pdf-text';
