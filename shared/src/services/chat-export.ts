import { z } from 'zod';
import { sourcesOfParts, type AnswerSource } from '../events/sources';
import type { ChatSession, ThreadMessage } from './chat';

/**
 * A chat as a file to keep or pass on: the branch the chat shows, as Markdown (to read: the text,
 * the reasoning, each tool call with its input and outcome, the answer's sources) or as JSON (the
 * stored UI parts and each answer's `sources`, to process). Pure: the route reads the session and sends the file.
 */

export const CHAT_EXPORT_FORMATS = ['markdown', 'json'] as const;
export type ChatExportFormat = (typeof CHAT_EXPORT_FORMATS)[number];

export const chatExportQuerySchema = z.object({ format: z.enum(CHAT_EXPORT_FORMATS).default('markdown') });

/** What the JSON export's `format` says: readers can tell versions apart if the shape changes. */
export const CHAT_EXPORT_JSON_FORMAT = 'agentq.chat.v1';

export type ChatExportFile = { filename: string; contentType: string; body: string };

/** The user's rating of an answer, as the export carries it beside the answer. */
export type ExportedRating = { rating: 'up' | 'down'; comment: string | null };

type Part = { type: string; [key: string]: unknown };

/** `ratings`: the user's ratings of the answers, by message id; each goes with its answer. `session.tags`: the chat's tags, which an import restores. */
export function exportChat(
  session: Pick<ChatSession, 'id' | 'title' | 'createdAt' | 'updatedAt'> & { tags?: readonly string[] },
  messages: readonly ThreadMessage[],
  format: ChatExportFormat,
  exportedAt = new Date(),
  ratings: ReadonlyMap<string, ExportedRating> = new Map(),
): ChatExportFile {
  const base = fileBaseName(session.title, session.id);
  if (format === 'json') {
    const document = {
      format: CHAT_EXPORT_JSON_FORMAT,
      exportedAt: exportedAt.toISOString(),
      session: { id: session.id, title: session.title, createdAt: session.createdAt.toISOString(), updatedAt: session.updatedAt.toISOString(), ...(session.tags ? { tags: session.tags } : {}) },
      messages: messages.map((message) => {
        const rated = ratings.get(message.id);
        const sources = sourcesOfParts(message.parts as Part[]);
        return {
          id: message.id,
          role: message.role,
          createdAt: message.createdAt.toISOString(),
          parts: message.parts,
          ...(sources.length > 0 ? { sources } : {}),
          ...(rated ? { feedback: rated } : {}),
        };
      }),
    };
    return { filename: `${base}.json`, contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(document, null, 2)}\n` };
  }
  return { filename: `${base}.md`, contentType: 'text/markdown; charset=utf-8', body: chatMarkdown(session, messages, exportedAt, ratings) };
}

function chatMarkdown(session: Pick<ChatSession, 'title'> & { tags?: readonly string[] }, messages: readonly ThreadMessage[], exportedAt: Date, ratings: ReadonlyMap<string, ExportedRating>): string {
  const blocks = [`# ${session.title.replace(/\s+/g, ' ').trim()}`, `_Exported from agentq on ${isoMinute(exportedAt)}; ${messages.length} ${messages.length === 1 ? 'message' : 'messages'}._`];
  if (session.tags?.length) blocks.push(`Tags: ${session.tags.map((tag) => tag.replace(/[\\`*_[\]<>#]/g, '\\$&')).join(', ')}`);
  for (const message of messages) {
    blocks.push(`## ${message.role === 'user' ? 'You' : 'Assistant'} · ${isoMinute(message.createdAt)}`);
    const parts = (message.parts as Part[]).flatMap((part) => partMarkdown(part));
    blocks.push(...(parts.length > 0 ? parts : ['_(no answer)_']));
    const sources = sourcesOfParts(message.parts as Part[]);
    if (sources.length > 0) blocks.push(sourcesMarkdown(sources));
    const rated = ratings.get(message.id);
    if (rated) blocks.push(`_Rated ${rated.rating === 'up' ? 'good 👍' : 'bad 👎'}${rated.comment ? `: ${rated.comment.replace(/\s+/g, ' ').trim()}` : ''}_`);
  }
  return `${blocks.join('\n\n')}\n`;
}

function partMarkdown(part: Part): string[] {
  if (part.type === 'text') return String(part.text ?? '').trim() ? [String(part.text).trim()] : [];
  // The file itself stays in the chat (the JSON keeps its part); the reader learns what was attached.
  if (part.type === 'file') return [`📎 _Attached: ${String(part.filename ?? 'file').replace(/[\\`*_[\]<>]/g, '\\$&')} (${String(part.mediaType ?? 'file')})_`];
  if (part.type === 'reasoning') {
    const text = String(part.text ?? '').trim();
    return text ? [`> **Thinking**\n>\n${text.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n')}`] : [];
  }
  const toolName = part.type === 'dynamic-tool' ? String(part.toolName ?? 'tool') : part.type.startsWith('tool-') ? part.type.slice(5) : undefined;
  if (toolName === undefined) return [];
  const { outcome, result } = toolOutcome(part);
  const lines = [`**Tool call \`${toolName}\`**: ${outcome}`, 'Input:', fenced(part.input, 'json')];
  if (result !== undefined) lines.push('Result:', fenced(result, typeof result === 'string' ? 'text' : 'json'));
  return [lines.join('\n\n')];
}

/**
 * How a call ended, and what it returned, as the chat's tool card tells it: our tools answer a
 * ToolResult (`{ success, data, text, error }`), whose data is the result; anything else is the result.
 */
function toolOutcome(part: Part): { outcome: string; result?: unknown } {
  const oneLine = (text: unknown) => String(text ?? 'unknown error').replace(/\s+/g, ' ').trim();
  switch (part.state) {
    case 'output-available': {
      const output = part.output as { success?: unknown; data?: unknown; text?: unknown; error?: unknown; interrupted?: unknown } | null;
      if (!output || typeof output !== 'object' || typeof output.success !== 'boolean') return { outcome: 'succeeded', result: part.output };
      if (output.interrupted) return { outcome: 'interrupted' };
      if (!output.success) return { outcome: `failed: ${oneLine(output.error ?? output.text)}` };
      return { outcome: 'succeeded', result: output.data !== undefined ? output.data : output.text };
    }
    case 'output-error':
      return { outcome: `failed: ${oneLine(part.errorText)}` };
    case 'output-denied':
      return { outcome: 'denied' };
    default:
      return { outcome: (part.approval as { approved?: unknown } | undefined)?.approved === false ? 'denied' : 'no result' };
  }
}

/** An answer's sources as the `[n]` in its text name them: title (linked for a web page), where from, and the passage quoted. */
function sourcesMarkdown(sources: readonly AnswerSource[]): string {
  const escape = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/[\\`*_[\]<>]/g, '\\$&');
  const lines = sources.map((source) => {
    const title = source.url ? `[${escape(source.title)}](<${source.url.replace(/[<>\s]/g, encodeURIComponent)}>)` : escape(source.title);
    const origin = source.kind === 'knowledge' ? ` (knowledge base${source.position !== undefined ? `, passage ${source.position + 1}` : ''})` : '';
    const quote = source.snippet ? `\n  > ${escape(source.snippet.length > 300 ? `${source.snippet.slice(0, 299)}…` : source.snippet)}` : '';
    return `- [${source.index}] ${title}${origin}${quote}`;
  });
  return `**Sources**\n\n${lines.join('\n')}`;
}

/** A code block that no backtick run inside the content can close early. */
export function fenced(value: unknown, language: string): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value ?? null, null, 2) ?? 'null');
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** 2026-12-06 23:16 UTC */
function isoMinute(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The title as a file name: letters and digits of any script kept, the rest dashes; the id when nothing is left. */
function fileBaseName(title: string, id: string): string {
  const name = title
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return name || id;
}

/**
 * `Content-Disposition` for a download named `filename`: an ASCII fallback for old clients and the
 * UTF-8 name (RFC 6266 / 5987) for the rest, so a Chinese title keeps its name.
 */
export function attachmentDisposition(filename: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
