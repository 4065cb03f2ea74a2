import { type SQL, sql } from 'drizzle-orm';
import { customType, index, integer, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { users } from './users';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The text search configuration of `search_vector`; queries must use the same one. English stems
 * words ("meetings" finds "meeting") and drops stop words, which ranks far better than 'simple'.
 */
export const DOCUMENT_SEARCH_CONFIG = 'english';

export const DOCUMENT_TYPES = ['memory', 'document'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Agent memory and deliverables (seed 003 ch.1), per user, searchable with PostgreSQL full-text search. */
export const agentDocuments = pgTable(
  'agent_documents',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** Set only by the document tool from the run's session, never through the API. */
    sessionId: text('session_id'),
    type: text('type', { enum: DOCUMENT_TYPES }).notNull(),
    title: varchar('title', { length: 255 }).notNull(),
    content: text('content').notNull(),
    summary: text('summary'),
    tags: varchar('tags', { length: 500 }),
    version: integer('version').notNull().default(1),
    searchVector: tsvector('search_vector').generatedAlwaysAs((): SQL => {
      const config = sql.raw(`'${DOCUMENT_SEARCH_CONFIG}'`);
      return sql`setweight(to_tsvector(${config}, coalesce(${agentDocuments.title}, '')), 'A') || setweight(to_tsvector(${config}, coalesce(${agentDocuments.tags}, '')), 'B') || setweight(to_tsvector(${config}, coalesce(${agentDocuments.content}, '')), 'C')`;
    }),
    ...timestamps,
  },
  (table) => [
    index('idx_agent_doc_user_type').on(table.userId, table.type),
    index('idx_agent_doc_user_created').on(table.userId, table.createdAt),
    index('idx_agent_doc_session').on(table.sessionId),
    index('idx_agent_doc_search_english').using('gin', table.searchVector),
  ],
);

export const agentDocumentRevisions = pgTable(
  'agent_document_revisions',
  {
    id: text('id').primaryKey(),
    documentId: text('document_id').notNull().references(() => agentDocuments.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    title: varchar('title', { length: 255 }).notNull(),
    content: text('content').notNull(),
    summary: text('summary'),
    tags: varchar('tags', { length: 500 }),
    createdByUserId: text('created_by_user_id'),
    createdByRunId: text('created_by_run_id'),
    createdAt,
  },
  (table) => [uniqueIndex('agent_doc_revisions_doc_version_idx').on(table.documentId, table.version)],
);
