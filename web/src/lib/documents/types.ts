/**
 * `/api/agent-documents` as the browser reads it: the API's shapes from @agentq/shared/api-types.
 */
import type { DocumentListItemView, DocumentRevisionView, DocumentType, DocumentView } from '@agentq/shared/api-types';

export type { DocumentChanges, DocumentInput as CreateDocumentInput, DocumentType } from '@agentq/shared/api-types';

/** memory: the agent's notes to itself; document: a deliverable for the user (seed 003). */
export const DOCUMENT_TYPES = ['memory', 'document'] as const satisfies readonly DocumentType[];

/** `GET /:id`, and what `POST /`, `PUT /:id` and `POST /:id/restore` answer. */
export type AgentDocument = DocumentView;

/** One row of `GET /`: no content; with `q`, ranked and with a snippet whose matches are in **bold**. */
export type DocumentListItem = DocumentListItemView;

export type DocumentPage = { items: DocumentListItem[]; total: number; nextCursor: string | null };

/** One version of a document (`GET /:id/revisions`, newest first). A run id means the agent wrote it. */
export type DocumentRevision = DocumentRevisionView;
