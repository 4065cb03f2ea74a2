export { CHATS_PER_IMPORT, chatImportBodySchema, importChats, type ChatImportResult } from './import-chats';
export type { ImportedChat, ImportedMessage } from './imported-chat';
export { chatCopySchema } from './agentq-json';
