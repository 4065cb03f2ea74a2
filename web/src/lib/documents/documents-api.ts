/**
 * Typed calls to `/api/agent-documents` (the signed-in user's own documents; another user's id
 * answers 404). Writes made with `expectedVersion` return a conflict as a value, because "someone
 * changed it meanwhile" is an outcome the page shows, not a failure.
 */
import { ApiError, apiFetch } from '../api.ts';
import type { AgentDocument, CreateDocumentInput, DocumentChanges, DocumentPage, DocumentRevision, DocumentType } from './types.ts';

const BASE = '/api/agent-documents';

/** The `fetch` of a `load` event, when there is one. */
type FetchOption = { fetch?: typeof fetch };

export type DocumentListQuery = { type?: DocumentType; q?: string; limit?: number; cursor?: string | null };

/**
 * A conditional write's outcome: saved, or refused because the document is no longer at
 * `expectedVersion` (then `current` is the version on the server now).
 */
export type VersionedWrite = { status: 'saved'; document: AgentDocument } | { status: 'conflict'; expectedVersion: number; current: AgentDocument };

const documentPath = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

/** One page of documents: newest update first, or most relevant first with `q`. */
export function listDocuments(query: DocumentListQuery, options: FetchOption = {}): Promise<DocumentPage> {
  const search = new URLSearchParams();
  if (query.type) search.set('type', query.type);
  if (query.q) search.set('q', query.q);
  if (query.limit) search.set('limit', String(query.limit));
  if (query.cursor) search.set('cursor', query.cursor);
  return apiFetch<DocumentPage>(`${BASE}?${search}`, options);
}

export function getDocument(id: string, options: FetchOption = {}): Promise<AgentDocument> {
  return apiFetch<AgentDocument>(documentPath(id), options);
}

export function createDocument(input: CreateDocumentInput): Promise<AgentDocument> {
  return apiFetch<AgentDocument>(BASE, { method: 'POST', json: input });
}

/** Saves `changes` only if the document is still at `expectedVersion`. */
export function updateDocument(id: string, changes: DocumentChanges, expectedVersion: number): Promise<VersionedWrite> {
  return conditionalWrite(id, expectedVersion, () => apiFetch<AgentDocument>(documentPath(id), { method: 'PUT', json: { ...changes, expectedVersion } }));
}

/** Brings `version` back as a new version, only if the document is still at `expectedVersion`. */
export function restoreRevision(id: string, version: number, expectedVersion: number): Promise<VersionedWrite> {
  return conditionalWrite(id, expectedVersion, () =>
    apiFetch<AgentDocument>(`${documentPath(id)}/restore`, { method: 'POST', json: { version, expectedVersion } }),
  );
}

export async function deleteDocument(id: string): Promise<void> {
  await apiFetch(documentPath(id), { method: 'DELETE' });
}

/** Every version, newest first, with who (user, or the agent's run) made it. */
export async function listRevisions(id: string, options: FetchOption = {}): Promise<DocumentRevision[]> {
  return (await apiFetch<{ items: DocumentRevision[] }>(`${documentPath(id)}/revisions`, options)).items;
}

/** The chat session each run belongs to, for the agent's runs that wrote revisions. */
export { findRunSessions } from '../runs/runs-api.ts';

async function conditionalWrite(id: string, expectedVersion: number, write: () => Promise<AgentDocument>): Promise<VersionedWrite> {
  try {
    return { status: 'saved', document: await write() };
  } catch (caught) {
    if (!(caught instanceof ApiError && caught.status === 409)) throw caught;
    // The 409 names the current version, but the page needs the document itself to offer a reload.
    return { status: 'conflict', expectedVersion, current: await getDocument(id) };
  }
}
