import { formatDateTime, locale, t } from '../i18n/i18n.svelte.ts';
import type { AgentDocument, DocumentChanges, DocumentType } from './types.ts';

/** "a, b" (as stored) → ["a", "b"]; empty pieces dropped. */
export function splitTags(tags: string | null | undefined): string[] {
  if (!tags) return [];
  return tags
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

export type SnippetPart = { text: string; match: boolean };

/** A match as `ts_headline` marks it: one word (a lexeme) between `**`, no spaces inside. */
const MATCH = /\*\*([^\s*]+)\*\*/g;

/**
 * A search snippet (`ts_headline` with each matching word wrapped in `**`) as text runs, so the page
 * can highlight the matches without rendering any HTML. The snippet is raw document text, so it may
 * hold the document's own `**bold**` as well ("****teal****" when the match was already bold): the
 * innermost single-word pair is the match, and leftover `**` are dropped. Line breaks become spaces.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const text = snippet.replace(/\s*\n\s*/g, ' ');
  const parts: SnippetPart[] = [];
  const plain = (run: string) => {
    const cleaned = run.replaceAll('**', '');
    if (cleaned) parts.push({ text: cleaned, match: false });
  };
  let last = 0;
  for (const found of text.matchAll(MATCH)) {
    plain(text.slice(last, found.index));
    parts.push({ text: found[1]!, match: true });
    last = found.index + found[0].length;
  }
  plain(text.slice(last));
  return parts;
}

/** The editable fields of a document, as the edit form holds them (all plain strings). */
export type DocumentDraft = { title: string; content: string; summary: string; tags: string };

export function draftOf(document: Pick<AgentDocument, 'title' | 'content' | 'summary' | 'tags'>): DocumentDraft {
  return { title: document.title, content: document.content, summary: document.summary ?? '', tags: document.tags ?? '' };
}

/**
 * What `PUT` should send: only the fields the user changed, so an untouched summary is re-derived
 * by the API when the content changes. An emptied summary is null (derive it from the content), an
 * emptied tag list is null (no tags). Empty when nothing changed.
 */
export function changesBetween(original: DocumentDraft, draft: DocumentDraft): DocumentChanges {
  const changes: DocumentChanges = {};
  if (draft.title.trim() !== original.title.trim()) changes.title = draft.title.trim();
  if (draft.content !== original.content) changes.content = draft.content;
  if (draft.summary.trim() !== original.summary.trim()) changes.summary = draft.summary.trim() || null;
  if (normalizeTags(draft.tags) !== normalizeTags(original.tags)) changes.tags = normalizeTags(draft.tags) || null;
  return changes;
}

function normalizeTags(tags: string): string {
  return splitTags(tags).join(', ');
}

/** Local date and time in the UI's language, or the raw value when it is not a date. */
export function formatTime(iso: string): string {
  return Number.isNaN(new Date(iso).getTime()) ? iso : formatDateTime(iso);
}

/** "memory" → "Memory" (记忆); the type select and badge labels. */
export function typeLabel(type: DocumentType): string {
  return t(type === 'memory' ? 'documents.typeMemory' : 'documents.typeDocument');
}

/** "1 memory", "3 documents". */
export function countLabel(count: number, type: DocumentType): string {
  if (locale.current === 'zh') return `${count} ${type === 'memory' ? '条记忆' : '篇文档'}`;
  const noun = type === 'memory' ? (count === 1 ? 'memory' : 'memories') : count === 1 ? 'document' : 'documents';
  return `${count} ${noun}`;
}

/** Markdown syntax that reads as noise in one-line previews: fences, table rules and pipes, block markers, links. */
function stripBlockSyntax(text: string): string {
  return text
    .replace(/^\s*(```|~~~).*$/gm, ' ')
    .replace(/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/\|/g, ' ')
    .replace(/(^|\s):?-{3,}:?(?=\s|$)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/(^|\s)#{1,6}\s+/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}

/**
 * A summary as plain prose: summaries are cut from the markdown content, so they carry code
 * fences, table pipes, heading and list markers that read as noise above the rendered document.
 * @example plainSummary('# Notes\n\n| a | b |\n|---|---|\n| 1 | 2 |') // 'Notes a b 1 2'
 */
export function plainSummary(summary: string | null | undefined): string {
  if (!summary) return '';
  return stripBlockSyntax(summary)
    .replace(/(\*\*|__|~~)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\n]+)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A search snippet without markdown block syntax; its **match** markers stay for `snippetParts`. */
export function plainSnippet(snippet: string): string {
  return stripBlockSyntax(snippet).replace(/\s+/g, ' ').trim();
}
