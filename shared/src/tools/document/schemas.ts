import { z } from 'zod';
import { DOCUMENT_TYPES } from '../../db/schema/documents';

export const DOCUMENT_ACTIONS = ['create', 'read', 'update', 'delete', 'list', 'search', 'str_replace', 'insert', 'restore'] as const;
export type DocumentAction = (typeof DOCUMENT_ACTIONS)[number];

/** Config of a `document` tool instance (seed 003 ch.2), every field defaulted. */
export const documentConfigSchema = z.object({
  maxContentLength: z.number().int().min(100).max(1_000_000).default(50_000).describe('Largest document content, in characters.'),
  defaultSummaryLength: z.number().int().min(20).max(2_000).default(200).describe('Length of the summary cut from the content when none is given, in characters.'),
  tokenBudget: z.number().int().min(100).max(100_000).default(2_000).describe('Tokens that read, list and search return at most (counted with a real tokenizer).'),
  maxPageSize: z.number().int().min(1).max(50).default(20).describe('Most documents one list or search page returns.'),
  approvalRequiredActions: z
    .array(z.enum(DOCUMENT_ACTIONS))
    .default((): DocumentAction[] => ['delete'])
    .describe('Actions that wait for the user to approve them.'),
});
export type DocumentToolConfig = z.output<typeof documentConfigSchema>;

/** A required field's message names the action, so the model knows what to add. */
function needs(action: DocumentAction, field: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? `${action} needs "${field}"` : undefined) };
}

const id = (action: DocumentAction) => z.string(needs(action, 'id')).trim().min(1).max(100).describe('Document id (ad_…), from create, list or search.');
const filterType = z.enum(DOCUMENT_TYPES).optional().describe('Only memories or only documents.');
const expectedVersion = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .optional()
  .describe('The version you read; the change is refused if the document has changed since.');
const title = z.string().trim().min(1).max(255);
const summary = z.string().trim().max(2_000).describe('One or two sentences; without one, the start of the content is used.');
const tags = z.string().max(500).describe('Comma-separated, e.g. "project-x, decisions".');

const createInput = z.object({
  action: z.literal('create'),
  title: z.string(needs('create', 'title')).trim().min(1).max(255),
  content: z.string(needs('create', 'content')).describe('Markdown.'),
  type: z.enum(DOCUMENT_TYPES).default('memory').describe('memory: notes for yourself in later sessions; document: a deliverable for the user.'),
  summary: summary.optional(),
  tags: tags.optional(),
});

const readInput = z.object({
  action: z.literal('read'),
  id: id('read'),
  fullContent: z.boolean().optional().describe('Return the whole content even when it is over the token budget.'),
  startLine: z.number().int().min(1).max(1_000_000).optional().describe('Read numbered lines from here (1-based).'),
  endLine: z.number().int().min(1).max(1_000_000).optional().describe('Last line to read (inclusive).'),
});

const updateInput = z
  .object({
    action: z.literal('update'),
    id: id('update'),
    title: title.optional(),
    content: z.string().optional().describe('Replaces the whole content (markdown).'),
    summary: summary.optional(),
    tags: tags.optional(),
    expectedVersion,
  })
  .refine((input) => [input.title, input.content, input.summary, input.tags].some((field) => field !== undefined), {
    message: 'update needs at least one of "title", "content", "summary", "tags"',
  });

const deleteInput = z.object({ action: z.literal('delete'), id: id('delete') });

const listInput = z.object({
  action: z.literal('list'),
  filterType,
  q: z.string().trim().max(500).optional().describe('Only documents matching these words (full-text).'),
  page: z.number().int().min(1).max(100_000).optional().describe('1-based page (default 1).'),
  pageSize: z.number().int().min(1).max(50).optional().describe('Documents per page (default 10, capped by the tool).'),
  offset: z.number().int().min(0).max(1_000_000).optional().describe('Skip this many documents (use the nextOffset a previous list returned).'),
});

const searchInput = z.object({
  action: z.literal('search'),
  q: z.string(needs('search', 'q')).trim().min(1, 'search needs "q"').max(500).describe('Words or "a phrase"; -word excludes, "or" allows either.'),
  filterType,
  limit: z.number().int().min(1).max(50).optional().describe('Most hits to return (capped by the tool).'),
  offset: z.number().int().min(0).max(1_000_000).optional().describe('Skip this many hits (use the nextOffset a previous search returned).'),
});

const strReplaceInput = z.object({
  action: z.literal('str_replace'),
  id: id('str_replace'),
  oldText: z.string(needs('str_replace', 'oldText')).min(1, 'str_replace needs a non-empty "oldText"').describe('Exact text to replace; must occur exactly once.'),
  newText: z.string(needs('str_replace', 'newText')).describe('The replacement (may be empty to delete).'),
  expectedVersion,
});

const insertInput = z.object({
  action: z.literal('insert'),
  id: id('insert'),
  line: z.number(needs('insert', 'line')).int().min(0).max(1_000_000).describe('Insert after this line; 0 inserts at the top.'),
  text: z.string(needs('insert', 'text')).describe('Text to insert (may span lines).'),
  expectedVersion,
});

const restoreInput = z.object({
  action: z.literal('restore'),
  id: id('restore'),
  version: z.number(needs('restore', 'version')).int().min(1).max(1_000_000).describe('The earlier version to bring back (as a new version).'),
  expectedVersion,
});

/** One object per action, told apart by `action`; each names its required fields. */
export const documentInputSchema = z.discriminatedUnion(
  'action',
  [createInput, readInput, updateInput, deleteInput, listInput, searchInput, strReplaceInput, insertInput, restoreInput],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `"action" must be one of: ${DOCUMENT_ACTIONS.join(', ')}` : undefined,
  },
);
export type DocumentToolInput = z.output<typeof documentInputSchema>;
export type DocumentActionInput<Action extends DocumentAction> = Extract<DocumentToolInput, { action: Action }>;
