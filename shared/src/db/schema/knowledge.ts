import { type SQL, sql } from 'drizzle-orm';
import { boolean, customType, index, integer, pgTable, text, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { users } from './users';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const KNOWLEDGE_FILE_STATUSES = ['processing', 'ready', 'failed'] as const;
export type KnowledgeFileStatus = (typeof KNOWLEDGE_FILE_STATUSES)[number];

/**
 * A user's collection of reference files (manuals, policies, notes) that a `knowledge` tool retrieves from.
 * An admin may share one read-only: with everyone, or with the members of some user groups, who then
 * see it in their list, open it, test-search it and have their chats search it (a tool set to do so).
 */
export const knowledgeBases = pgTable(
  'knowledge_bases',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull().default(''),
    /** Readable by other users too (only while its owner is an admin); false: the owner's alone. */
    shared: boolean('shared').notNull().default(false),
    /** Whom a shared base is for: the user groups (user_groups.id) whose members read it; empty is everyone. */
    groupIds: text('group_ids').array().notNull().default(sql`'{}'::text[]`),
    ...timestamps,
  },
  (table) => [index('knowledge_bases_user_idx').on(table.userId, table.createdAt), index('knowledge_bases_shared_idx').on(table.shared).where(sql`${table.shared}`)],
);

/**
 * A file of a knowledge base: its bytes are kept (the ingestion job reads them from here), its text is
 * split into `knowledge_chunks` by the `knowledge-ingestions` queue, which moves `status` on.
 */
export const knowledgeFiles = pgTable(
  'knowledge_files',
  {
    id: text('id').primaryKey(),
    baseId: text('base_id').notNull().references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    /** The name it was uploaded under, cleaned of paths and control characters; a web page's title. */
    name: text('name').notNull(),
    /** The web page this file was fetched from ("Add web page"); null for an upload. Processing it again fetches it again. */
    sourceUrl: text('source_url'),
    /** Judged from the bytes: application/pdf, or a text/* type for valid UTF-8. */
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    data: bytea('data').notNull(),
    status: varchar('status', { length: 20, enum: KNOWLEDGE_FILE_STATUSES }).notNull().default('processing'),
    /** Why processing failed (safe to show: no key, no stack). */
    error: text('error'),
    chunkCount: integer('chunk_count').notNull().default(0),
    /** The model id its passages were embedded with (null: not embedded); another one now makes it stale. */
    embeddingModel: text('embedding_model'),
    ...timestamps,
  },
  (table) => [index('knowledge_files_base_idx').on(table.baseId, table.createdAt)],
);

/**
 * A passage of a file, about 1,000 characters, searched by English full-text (`search_vector`) and, when
 * an embedding model exists, by cosine similarity of `vector` (unit length, so a dot product), scored in
 * the searching process (services/knowledge/vector-ranking.ts). No pgvector: it needs no extension, so
 * PGlite works too.
 */
export const knowledgeChunks = pgTable(
  'knowledge_chunks',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    fileId: text('file_id').notNull().references(() => knowledgeFiles.id, { onDelete: 'cascade' }),
    /** Denormalised from the file: searches filter by base. */
    baseId: text('base_id').notNull().references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    /** 0-based order of the chunk within its file. */
    position: integer('position').notNull(),
    text: text('text').notNull(),
    /** The embedding as 4-byte big-endian floats (`float4send`'s order): a quarter of `real[]`'s text to read. */
    vector: bytea('vector'),
    searchVector: tsvector('search_vector').generatedAlwaysAs((): SQL => sql`to_tsvector('english', ${knowledgeChunks.text})`),
    createdAt,
  },
  (table) => [
    index('knowledge_chunks_base_idx').on(table.baseId),
    index('knowledge_chunks_file_idx').on(table.fileId, table.position),
    index('knowledge_chunks_search_idx').using('gin', table.searchVector),
  ],
);
