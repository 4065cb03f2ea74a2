import { z } from 'zod';
import { MODEL_TOOL_NAME } from '../../tools/model-tools';
import { chatFileUrl } from '../chat-files/judge-upload';

/**
 * The message parts an imported chat may keep: what the chat shows and the model reads back, in
 * shapes checked field by field. A file's parts reach the model's history, so nothing else passes:
 * no files or URLs (the model's provider would fetch them), no provider options, no approvals or
 * calls still waiting (they would look pending), and every tool call in an ended state. Only a
 * shared chat keeps its questions' files (`keepFiles`): parts naming files stored with the chat,
 * which its reader's copy gets copies of (importChats' `filesFrom`).
 */

/** Longest text or reasoning part kept; a question may be 100,000 characters, answers run longer. */
export const IMPORTED_TEXT_MAX = 1_000_000;

const textPart = z.object({ type: z.literal('text'), text: z.string().max(IMPORTED_TEXT_MAX) });
const reasoningPart = z.object({
  type: z.literal('reasoning'),
  text: z.string().max(IMPORTED_TEXT_MAX),
  // Only how long the model thought, as the chat stores it (the reasoning's "Thought for 3 s").
  providerMetadata: z.object({ agentq: z.object({ durationMs: z.number().nonnegative().max(86_400_000) }) }).optional(),
});
const stepStartPart = z.object({ type: z.literal('step-start') });
/** A question's file as the chat stores it: a name, a type and the stored file's id, never bytes or a URL to fetch. */
const chatFilePart = z.object({
  type: z.literal('file'),
  mediaType: z.string().min(1).max(255),
  filename: z.string().max(1_000).optional(),
  url: z.string().regex(new RegExp(`^${chatFileUrl('')}[A-Za-z0-9_-]{1,100}$`), 'Not a file of the chat'),
});

const toolCall = {
  toolCallId: z.string().min(1).max(200),
  input: z.unknown(),
};
const endedState = [
  z.object({ state: z.literal('output-available'), output: z.unknown() }),
  z.object({ state: z.literal('output-error'), errorText: z.string().max(IMPORTED_TEXT_MAX) }),
  z.object({ state: z.literal('output-denied') }),
] as const;
const staticToolType = z.string().regex(/^tool-[A-Za-z0-9_-]{1,64}$/, 'Tool names are letters, digits, _ and -') as unknown as z.ZodType<`tool-${string}`>;
const staticToolPart = z.object({ type: staticToolType, ...toolCall });
const dynamicToolPart = z.object({ type: z.literal('dynamic-tool'), toolName: z.string().regex(MODEL_TOOL_NAME, 'Tool names are letters, digits, _ and -'), ...toolCall });
/** A tool part's schema by its ended state, static (`tool-<name>`) or dynamic. */
const endedToolParts = new Map(endedState.map((state) => [state.shape.state.value as string, { static: staticToolPart.extend(state.shape), dynamic: dynamicToolPart.extend(state.shape) }]));

export type ImportedPart =
  | z.infer<typeof textPart>
  | z.infer<typeof reasoningPart>
  | z.infer<typeof stepStartPart>
  | ImportedFilePart
  | ((z.infer<typeof staticToolPart> | z.infer<typeof dynamicToolPart>) & z.infer<(typeof endedState)[number]>);

export type ImportedFilePart = z.infer<typeof chatFilePart>;
export type ImportedRole = 'user' | 'assistant';

/** What a chat's parts may keep beyond an import's: its questions' stored files. */
export type KeptPartsOptions = { keepFiles?: boolean };

/**
 * The parts of one message that may be imported. A part of a kind we keep must be well formed
 * (else a 400 names it); kinds we do not keep (files, sources, data, calls that never ended) are
 * left out and counted.
 */
export const messagePartsSchema = (role: ImportedRole, options: KeptPartsOptions = {}) =>
  z.array(z.unknown()).max(2_000).transform((raw, ctx) => {
    const parts: ImportedPart[] = [];
    let dropped = 0;
    raw.forEach((value, index) => {
      const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
      const schema = partSchemaFor(role, type, value as { state?: unknown }, options);
      if (!schema) {
        dropped++;
        return;
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: [index, ...issue.path] });
        return;
      }
      const part = parsed.data as ImportedPart;
      if (part.type === 'text' && !part.text.trim()) return;
      parts.push(part);
    });
    return { parts, dropped };
  });

function partSchemaFor(role: ImportedRole, type: unknown, value: { state?: unknown }, options: KeptPartsOptions): z.ZodType | undefined {
  if (type === 'text') return textPart;
  if (type === 'file') return role === 'user' && options.keepFiles ? chatFilePart : undefined;
  if (role === 'user' || typeof type !== 'string') return undefined;
  if (type === 'reasoning') return reasoningPart;
  if (type === 'step-start') return stepStartPart;
  if (type !== 'dynamic-tool' && !type.startsWith('tool-')) return undefined;
  const ended = endedToolParts.get(value.state as string);
  if (!ended) return undefined;
  return type === 'dynamic-tool' ? ended.dynamic : ended.static;
}
