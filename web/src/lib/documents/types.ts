/**
 * `/api/agent-documents` as the browser reads it (web keeps its own copies of API shapes: it
 * reaches the API over HTTP and does not depend on `shared`).
 */

export const DOCUMENT_TYPES = ['memory', 'document'] as const;
/** memory: the agent's notes to itself; document: a deliverable for the user (seed 003). */
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** `GET /:id`, and what `POST /`, `PUT /:id` and `POST /:id/restore` answer. */
export type AgentDocument = {
  id: string;
  userId: string;
  type: DocumentType;
  title: string;
  content: string;
  summary: string | null;
  /** Comma-separated, as stored ("a, b"); null when none. */
  tags: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** The chat session whose agent created it; read only if the API exposes it (today it does not). */
  sessionId?: string | null;
};

/** One row of `GET /`: no content; with `q`, ranked and with a snippet whose matches are in **bold**. */
export type DocumentListItem = Pick<AgentDocument, 'id' | 'type' | 'title' | 'summary' | 'tags' | 'version' | 'createdAt' | 'updatedAt'> & {
  rank?: number;
  snippet?: string;
};

export type DocumentPage = { items: DocumentListItem[]; total: number; nextCursor: string | null };

/** One version of a document (`GET /:id/revisions`, newest first). A run id means the agent wrote it. */
export type DocumentRevision = {
  id: string;
  documentId: string;
  version: number;
  title: string;
  content: string;
  summary: string | null;
  tags: string | null;
  createdByUserId: string | null;
  createdByRunId: string | null;
  createdAt: string;
};

/** `POST /`. */
export type CreateDocumentInput = {
  type: DocumentType;
  title: string;
  content: string;
  /** Null or left out: the API takes the start of the content. */
  summary?: string | null;
  tags?: string | null;
};

/** `PUT /:id`: only what changed; null summary re-derives it, null tags clears them. */
export type DocumentChanges = {
  title?: string;
  content?: string;
  summary?: string | null;
  tags?: string | null;
};
