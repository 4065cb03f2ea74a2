import { sql } from 'drizzle-orm';
import { boolean, numeric, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

export const llmModels = pgTable('llm_models', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  baseUrl: text('base_url').notNull(),
  /** AES-GCM ciphertext keyed by APP_SECRET; never returned by any route. */
  apiKeyEncrypted: text('api_key_encrypted'),
  modelId: text('model_id').notNull(),
  supportsReasoning: boolean('supports_reasoning').notNull().default(false),
  /** Vision: the model takes images. Off, a chat cannot send it one, and images earlier in a chat reach it as a note. */
  supportsImages: boolean('supports_images').notNull().default(true),
  /** The model names the chats it answers: a short title from the first question, made beside the first answer. */
  namesChats: boolean('names_chats').notNull().default(false),
  /** After each answer the model suggests 3 short follow-up questions, stored with the answer; off, nothing is asked. */
  suggestsFollowUps: boolean('suggests_follow_ups').notNull().default(false),
  /** Only admins may pick it for a chat; an agent an admin set to use it still does (that is how it is shared). Never the default. */
  adminsOnly: boolean('admins_only').notNull().default(false),
  /**
   * Who can use it: the user groups (user_groups.id) whose members may pick it for a chat; empty is
   * everyone. Like adminsOnly it limits who may name it, not the agents an admin set to use it.
   */
  groupIds: text('group_ids').array().notNull().default(sql`'{}'::text[]`),
  /**
   * A speech-to-text model (e.g. whisper-1) behind `POST {baseUrl}/audio/transcriptions`: the chat
   * composer's dictation. Not a chat model, so never in a chat's list nor the default; at most one row has it.
   */
  transcribesSpeech: boolean('transcribes_speech').notNull().default(false),
  /**
   * An embedding model behind `POST {baseUrl}/embeddings`: knowledge bases index their passages with it.
   * Not a chat model, so never in a chat's list nor the default; at most one row has it.
   */
  embedsText: boolean('embeds_text').notNull().default(false),
  /**
   * An image model behind `POST {baseUrl}/images/generations`: the image-generation tool draws with it.
   * Not a chat model, so never in a chat's list nor the default; at most one row has it.
   */
  generatesImages: boolean('generates_images').notNull().default(false),
  /** US dollars per million input tokens; null: no price (its runs have no cost). A run's cost is reckoned with the prices when it ends. */
  inputPrice: numeric('input_price', { precision: 14, scale: 6, mode: 'number' }),
  /** US dollars per million output tokens (reasoning tokens are output); null: no price. */
  outputPrice: numeric('output_price', { precision: 14, scale: 6, mode: 'number' }),
  enabled: boolean('enabled').notNull().default(true),
  /** The model new chats use when neither the request nor the agent names one; at most one row has it. */
  isDefault: boolean('is_default').notNull().default(false),
  ...timestamps,
}, (table) => [
  uniqueIndex('llm_models_one_default_idx').on(table.isDefault).where(sql`${table.isDefault}`),
  uniqueIndex('llm_models_one_transcriber_idx').on(table.transcribesSpeech).where(sql`${table.transcribesSpeech}`),
  uniqueIndex('llm_models_one_embedder_idx').on(table.embedsText).where(sql`${table.embedsText}`),
  uniqueIndex('llm_models_one_image_generator_idx').on(table.generatesImages).where(sql`${table.generatesImages}`),
]);
