/**
 * What the API sends for each resource, derived from the services' own return types and passed
 * through `Jsonify` (dates become ISO strings). Type-only imports: nothing server-side reaches the
 * browser bundle, and a change to a service's shape shows up in the web's typecheck.
 */
import type { ApprovalStatus as ApprovalStatusOfRow } from '../db/schema/approvals';
import type { RunStatus as RunStatusOfRow } from '../db/schema/runs';
import type {
  Agent,
  AgentDocument,
  Approval,
  ChatSession,
  ChatTagSummary,
  DecideApprovalInput,
  DocumentListItem,
  DocumentRevision,
  DocumentSearchHit,
  ExecutedToolResult,
  LlmModel,
  SessionSearchHit,
  TaggedChatSession,
  ThreadMessage,
  createAgentInputSchema,
  createDocumentInputSchema,
  createModelInputSchema,
  createToolInputSchema,
  startRunInputSchema,
  listToolLogs,
  toDocumentView,
  toRunView,
  toToolView,
  updateAgentInputSchema,
  updateDocumentInputSchema,
  updateModelInputSchema,
  updateToolInputSchema,
} from '../services';
import type { describeToolTypes } from '../tools';
import type { z } from 'zod';

/**
 * A value as `JSON.parse(JSON.stringify(value))` gives it back: dates become strings, functions
 * and `undefined`-only keys vanish. Enough for the plain rows and views the API sends.
 * @example type AgentView = Jsonify<Agent>; // createdAt: string
 */
export type Jsonify<T> = T extends Date
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? Jsonify<Item>[]
      : T extends (...args: never[]) => unknown
        ? never
        : T extends object
          ? { [Key in keyof T as T[Key] extends (...args: never[]) => unknown ? never : Key]: Jsonify<T[Key]> }
          : T;

/** A list endpoint's page: `{ items }`, with a total and cursor where the route pages. */
export type ListPage<Item> = { items: Item[]; total?: number; nextCursor?: string | null };

export type RunStatus = RunStatusOfRow;
export type ApprovalStatus = ApprovalStatusOfRow;

// Agents, models, tools (admin).
export type AgentView = Jsonify<Agent>;
export type AgentToolAssociationView = AgentView['tools'][number];
export type AgentInput = z.input<typeof createAgentInputSchema>;
export type AgentChanges = z.input<typeof updateAgentInputSchema>;
export type ModelView = Jsonify<LlmModel>;
export type ModelInput = z.input<typeof createModelInputSchema>;
export type ModelChanges = z.input<typeof updateModelInputSchema>;
export type ToolView = Jsonify<ReturnType<typeof toToolView>>;
export type DiscoveredToolView = NonNullable<ToolView['discoveredTools']>[number];
export type ToolInput = z.input<typeof createToolInputSchema>;
export type ToolChanges = z.input<typeof updateToolInputSchema>;
/** What running a tool returns; a failure is a value with `error`, not an HTTP error. */
export type ToolResultView = Jsonify<ExecutedToolResult>;
export type ToolTypeView = Jsonify<ReturnType<typeof describeToolTypes>[number]>;
export type ToolLogPage = Jsonify<Awaited<ReturnType<typeof listToolLogs>>>;
export type ToolLogView = ToolLogPage['items'][number];
export type ToolLogStatus = ToolLogView['status'];

// Runs, chat sessions, approvals.
export type RunView = Jsonify<ReturnType<typeof toRunView>>;
export type ChatSessionView = Jsonify<ChatSession>;
/** A chat as the lists send it: with its tags' names. */
export type TaggedChatSessionView = Jsonify<TaggedChatSession>;
/** One of the user's tags (`GET /api/tags`). */
export type ChatTagView = ChatTagSummary;
/** A stored message; `parts` stay `unknown[]` here and the chat reads them as AI SDK UI parts. */
export type SessionMessageView = Jsonify<ThreadMessage>;
export type SessionSearchHitView = Jsonify<SessionSearchHit>;
export type ApprovalView = Jsonify<Approval>;
export type ApprovalDecision = DecideApprovalInput;
export type StartRunInput = z.input<typeof startRunInputSchema>;

// Documents.
export type DocumentView = Jsonify<ReturnType<typeof toDocumentView>>;
export type DocumentListItemView = Jsonify<DocumentListItem> & Partial<Pick<Jsonify<DocumentSearchHit>, 'rank' | 'snippet'>>;
export type DocumentRevisionView = Jsonify<DocumentRevision>;
export type DocumentInput = z.input<typeof createDocumentInputSchema>;
export type DocumentChanges = Omit<z.input<typeof updateDocumentInputSchema>, 'expectedVersion'>;
export type DocumentType = AgentDocument['type'];
