/** The user's knowledge bases (`/api/knowledge`): bases, their files (uploaded, then processed on the server), and a test search. */
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type KnowledgeBaseSummary = RouteOutput<'/knowledge', '$get'>['items'][number];
export type KnowledgeBaseDetail = RouteOutput<'/knowledge/:id', '$get'>;
export type KnowledgeFile = KnowledgeBaseDetail['files'][number];
export type KnowledgeSearchResult = RouteOutput<'/knowledge/:id/search', '$post'>;
export type KnowledgeBaseInput = { name: string; description?: string };
/** Admins only: share a base read-only with everyone (no group) or with the members of some groups. */
export type KnowledgeSharingInput = { shared: boolean; groupIds: string[] };

export async function listKnowledgeBases(options: FetchOption = {}): Promise<KnowledgeBaseSummary[]> {
  return (await apiFetch<{ items: KnowledgeBaseSummary[] }>('/api/knowledge', options)).items;
}

export function getKnowledgeBase(id: string, options: FetchOption = {}): Promise<KnowledgeBaseDetail> {
  return apiFetch(`/api/knowledge/${segment(id)}`, options);
}

export function createKnowledgeBase(input: KnowledgeBaseInput): Promise<{ id: string }> {
  return apiFetch('/api/knowledge', { method: 'POST', json: input });
}

export function updateKnowledgeBase(id: string, input: Partial<KnowledgeBaseInput & KnowledgeSharingInput>): Promise<{ id: string; name: string; shared: boolean; groupIds: string[] }> {
  return apiFetch(`/api/knowledge/${segment(id)}`, { method: 'PATCH', json: input });
}

export async function deleteKnowledgeBase(id: string): Promise<void> {
  await apiFetch(`/api/knowledge/${segment(id)}`, { method: 'DELETE' });
}

export function uploadKnowledgeFile(id: string, file: File): Promise<KnowledgeFile> {
  const body = new FormData();
  body.append('file', file, file.name);
  return apiFetch(`/api/knowledge/${segment(id)}/files`, { method: 'POST', body });
}

/** Adds web pages (one file each, fetched and processed on the server). */
export async function addKnowledgePages(id: string, urls: string[]): Promise<KnowledgeFile[]> {
  return (await apiFetch<{ items: KnowledgeFile[] }>(`/api/knowledge/${segment(id)}/pages`, { method: 'POST', json: { urls } })).items;
}

/** Fetches a web page's file again and processes it. */
export async function refetchKnowledgePage(id: string, fileId: string): Promise<void> {
  await apiFetch(`/api/knowledge/${segment(id)}/files/${segment(fileId)}/refetch`, { method: 'POST' });
}

export async function deleteKnowledgeFile(id: string, fileId: string): Promise<void> {
  await apiFetch(`/api/knowledge/${segment(id)}/files/${segment(fileId)}`, { method: 'DELETE' });
}

export function searchKnowledgeBase(id: string, query: string, topK = 5): Promise<KnowledgeSearchResult> {
  return apiFetch(`/api/knowledge/${segment(id)}/search`, { method: 'POST', json: { query, topK } });
}

export type ReindexOutcome = RouteOutput<'/knowledge/:id/reindex', '$post'>;

/** Processes again the base's files the current embedding model did not embed, and the failed ones. */
export function reindexKnowledgeBase(id: string): Promise<ReindexOutcome> {
  return apiFetch(`/api/knowledge/${segment(id)}/reindex`, { method: 'POST' });
}

/** The same for every user's bases (admins). */
export function reindexAllKnowledge(): Promise<ReindexOutcome> {
  return apiFetch('/api/admin/knowledge/reindex', { method: 'POST' });
}
