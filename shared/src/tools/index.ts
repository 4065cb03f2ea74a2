export * from './define-tool-type';
export * from './errors';
export * from './registry';
export { assertSafeUrl, BlockedDestinationError } from './fetch/assert-safe-url';
export * from './model-tools';
export { tokenCounter, type TokenCounter } from './document/token-budget';
export { htmlToMarkdown } from './fetch/html-to-markdown';
export { closeMarkdownThreads, convertHtmlToMarkdown, warmMarkdownThreads } from './fetch/markdown-threads';
export { fetchWebPage, MAX_PAGE_TEXT_BYTES, pageDocument, type WebPage, type WebPageOutcome, webPageUrlSchema } from './fetch/fetch-web-page';
