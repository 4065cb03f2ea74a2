import { and, asc, desc, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import { answersChats } from '../api-types/models';
import type { Database } from '../db/client';
import { agents, llmModels } from '../db/schema';
import { newId } from '../ids';
import { findInAgentConfig, loadAgentConfig } from './agent-config';
import { invalidateConfig } from './config-cache';
import { InvalidInputError, NotFoundError } from './errors';
import { checkGroupIds, groupIdsSchema } from './groups/groups';
import { decryptSecret, encryptSecret } from './secrets';

type LlmModelRow = typeof llmModels.$inferSelect;

/** A model as every route shows it: the key itself never leaves the service, only whether one is set. */
export type LlmModel = Omit<LlmModelRow, 'apiKeyEncrypted'> & { hasApiKey: boolean };

/** Only for the worker's model call: the view plus the decrypted key. */
export type LlmModelWithKey = LlmModel & { apiKey: string | null };

const httpUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .pipe(z.url({ protocol: /^https?$/, error: 'Enter an http:// or https:// URL, e.g. https://api.openai.com/v1' }));

/** A price per million tokens: at most 6 decimals (what the column keeps), nothing negative. */
const pricePerMillionSchema = z
  .number()
  .min(0, 'A price cannot be negative')
  .max(100_000, 'Give the price per million tokens, at most 100000')
  .refine((price) => Math.abs(Math.round(price * 1e6) - price * 1e6) < 1e-6, 'Give at most 6 decimals')
  .nullable();

const modelFieldsSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** The OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1`. */
  baseUrl: httpUrlSchema,
  /** Write-only: stored encrypted with APP_SECRET. */
  apiKey: z.string().trim().min(1, 'Leave the API key out to keep it, or send null to clear it').max(4096).nullable(),
  /** The provider's model name, sent as `model` in the request. */
  modelId: z.string().trim().min(1).max(200),
  supportsReasoning: z.boolean(),
  supportsImages: z.boolean(),
  /** The model names the chats it answers: a short title from the first question, asked beside the first answer. */
  namesChats: z.boolean(),
  /** After each answer the model suggests 3 short follow-up questions (a second, small call); off, nothing is asked. */
  suggestsFollowUps: z.boolean(),
  /** Only admins may pick it for a chat (an agent an admin set to use it still does); never the default. */
  adminsOnly: z.boolean(),
  /** Who can use it: the user groups whose members may pick it for a chat; empty is everyone (admins always may). Agents set to use it still do; never the default. */
  groupIds: groupIdsSchema,
  /** A speech-to-text model for dictation (`POST {baseUrl}/audio/transcriptions`), not a chat model; setting it takes the flag from the previous one. */
  transcribesSpeech: z.boolean(),
  /** An embedding model for knowledge bases (`POST {baseUrl}/embeddings`), not a chat model; setting it takes the flag from the previous one. */
  embedsText: z.boolean(),
  /** An image model for the image-generation tool (`POST {baseUrl}/images/generations`), not a chat model; setting it takes the flag from the previous one. */
  generatesImages: z.boolean(),
  /** US dollars per million input tokens, for the usage reports' costs; null: no price. */
  inputPrice: pricePerMillionSchema,
  /** US dollars per million output tokens (reasoning tokens are output); null: no price. */
  outputPrice: pricePerMillionSchema,
  enabled: z.boolean(),
  /** New chats use the default model unless the chat or its agent names another; setting it takes the flag from the previous one. */
  isDefault: z.boolean(),
});

/** POST /api/models. */
export const createModelInputSchema = modelFieldsSchema.extend({
  apiKey: modelFieldsSchema.shape.apiKey.optional(),
  supportsReasoning: z.boolean().default(false),
  supportsImages: z.boolean().default(true),
  namesChats: z.boolean().default(false),
  suggestsFollowUps: z.boolean().default(false),
  adminsOnly: z.boolean().default(false),
  groupIds: groupIdsSchema.default([]),
  transcribesSpeech: z.boolean().default(false),
  embedsText: z.boolean().default(false),
  generatesImages: z.boolean().default(false),
  inputPrice: pricePerMillionSchema.default(null),
  outputPrice: pricePerMillionSchema.default(null),
  enabled: z.boolean().default(true),
  isDefault: z.boolean().default(false),
});
export type CreateModelInput = z.input<typeof createModelInputSchema>;

/** PUT /api/models/:id: any subset; `apiKey` left out keeps the stored key, `null` clears it. */
export const updateModelInputSchema = modelFieldsSchema.partial();
export type UpdateModelInput = z.input<typeof updateModelInputSchema>;

/** The default model is every user's chat model: one for admins only, or one that transcribes speech, embeds text or generates images, cannot be it. */
function refuseBadDefault(model: { adminsOnly: boolean; groupIds: readonly string[]; transcribesSpeech: boolean; embedsText?: boolean; generatesImages?: boolean; isDefault: boolean }): void {
  if (model.generatesImages && model.isDefault) {
    throw new InvalidInputError('The default model answers chats: a model that generates images cannot be it', [{ path: ['generatesImages'], message: 'The default model cannot be the image model' }]);
  }
  if (model.embedsText && model.isDefault) {
    throw new InvalidInputError('The default model answers chats: a model that embeds text cannot be it', [{ path: ['embedsText'], message: 'The default model cannot be the embedding model' }]);
  }
  if (model.adminsOnly && model.isDefault) {
    throw new InvalidInputError('The default model is used by everyone: it cannot be for admins only', [{ path: ['adminsOnly'], message: 'The default model cannot be for admins only' }]);
  }
  if (model.groupIds.length > 0 && model.isDefault) {
    throw new InvalidInputError('The default model is used by everyone: it cannot be limited to groups', [{ path: ['groupIds'], message: 'The default model cannot be limited to groups' }]);
  }
  if (model.transcribesSpeech && model.isDefault) {
    throw new InvalidInputError('The default model answers chats: a model that transcribes speech cannot be it', [{ path: ['transcribesSpeech'], message: 'The default model cannot be the transcription model' }]);
  }
}

function toModelView({ apiKeyEncrypted, ...row }: LlmModelRow): LlmModel {
  return { ...row, hasApiKey: apiKeyEncrypted !== null };
}

function encryptKey(apiKey: string | null | undefined, appSecret: string): string | null {
  return apiKey ? encryptSecret(apiKey, appSecret) : null;
}

async function findModelRow(db: Database, id: string): Promise<LlmModelRow> {
  const [row] = await db.select().from(llmModels).where(eq(llmModels.id, id));
  if (!row) throw new NotFoundError('Model', id);
  return row;
}

/** Models by name; `{ enabled: true }` for the ones a chat may use. */
export async function listModels(db: Database, filter: { enabled?: boolean } = {}): Promise<LlmModel[]> {
  const rows = await db
    .select()
    .from(llmModels)
    .where(filter.enabled === undefined ? undefined : eq(llmModels.enabled, filter.enabled))
    .orderBy(desc(llmModels.isDefault), asc(llmModels.name), asc(llmModels.createdAt));
  return rows.map(toModelView);
}

/** One model as routes show it (no key). @throws {NotFoundError} */
export async function getModel(db: Database, id: string): Promise<LlmModel> {
  return toModelView(await findModelRow(db, id));
}

/** Creates a model; a given `apiKey` is encrypted with `appSecret` before it is stored. */
export async function createModel(db: Database, input: CreateModelInput, appSecret: string): Promise<LlmModel> {
  const { apiKey, ...fields } = createModelInputSchema.parse(input);
  refuseBadDefault(fields);
  await checkGroupIds(db, fields.groupIds);
  const row = await db.transaction(async (tx) => {
    if (fields.isDefault) await tx.update(llmModels).set({ isDefault: false }).where(eq(llmModels.isDefault, true));
    if (fields.transcribesSpeech) await tx.update(llmModels).set({ transcribesSpeech: false }).where(eq(llmModels.transcribesSpeech, true));
    if (fields.embedsText) await tx.update(llmModels).set({ embedsText: false }).where(eq(llmModels.embedsText, true));
    if (fields.generatesImages) await tx.update(llmModels).set({ generatesImages: false }).where(eq(llmModels.generatesImages, true));
    const [inserted] = await tx
      .insert(llmModels)
      .values({ id: newId('model'), ...fields, apiKeyEncrypted: encryptKey(apiKey, appSecret) })
      .returning();
    return inserted!;
  });
  await invalidateConfig(db);
  return toModelView(row);
}

/** A model agents answer chats with cannot become the transcription, embedding or image model (their runs would all be refused). */
async function refuseAgentsModel(db: Database, modelId: string, flag: NotChatFlag): Promise<void> {
  const users = await db.select({ name: agents.name }).from(agents).where(eq(agents.modelId, modelId)).orderBy(asc(agents.name));
  if (users.length === 0) return;
  const names = users.map((agent) => `'${agent.name}'`).join(', ');
  throw new InvalidInputError(`Agents answer chats with this model (${names}): give them another model first`, [{ path: [flag], message: `Used by ${names}` }]);
}

/** The flags that make a model serve something other than chats (each held by at most one model). */
const NOT_CHAT_FLAGS = ['transcribesSpeech', 'embedsText', 'generatesImages'] as const;
type NotChatFlag = (typeof NOT_CHAT_FLAGS)[number];

/** Updates a model; `apiKey` undefined keeps the stored key, `null` clears it, a string replaces it. */
export async function updateModel(db: Database, id: string, input: UpdateModelInput, appSecret: string): Promise<LlmModel> {
  const { apiKey, ...fields } = updateModelInputSchema.parse(input);
  const changes: Partial<typeof llmModels.$inferInsert> = { ...fields };
  if (apiKey !== undefined) changes.apiKeyEncrypted = encryptKey(apiKey, appSecret);
  if (Object.keys(changes).length === 0) return getModel(db, id);
  await checkGroupIds(db, fields.groupIds);
  const row = await db.transaction(async (tx) => {
    if (changes.isDefault) await tx.update(llmModels).set({ isDefault: false }).where(and(eq(llmModels.isDefault, true), ne(llmModels.id, id)));
    const notChatFlag = NOT_CHAT_FLAGS.find((flag) => changes[flag]);
    if (notChatFlag) await refuseAgentsModel(tx, id, notChatFlag);
    if (changes.transcribesSpeech) await tx.update(llmModels).set({ transcribesSpeech: false }).where(and(eq(llmModels.transcribesSpeech, true), ne(llmModels.id, id)));
    if (changes.embedsText) await tx.update(llmModels).set({ embedsText: false }).where(and(eq(llmModels.embedsText, true), ne(llmModels.id, id)));
    if (changes.generatesImages) await tx.update(llmModels).set({ generatesImages: false }).where(and(eq(llmModels.generatesImages, true), ne(llmModels.id, id)));
    const [updated] = await tx.update(llmModels).set(changes).where(eq(llmModels.id, id)).returning();
    if (updated) refuseBadDefault(updated);
    return updated;
  });
  if (!row) throw new NotFoundError('Model', id);
  await invalidateConfig(db);
  return toModelView(row);
}

/** Deletes a model; agents that used it keep working with no model set (`on delete set null`). */
export async function deleteModel(db: Database, id: string): Promise<void> {
  const deleted = await db.delete(llmModels).where(eq(llmModels.id, id)).returning({ id: llmModels.id });
  if (deleted.length === 0) throw new NotFoundError('Model', id);
  await invalidateConfig(db);
}

/**
 * The model with its decrypted API key, for the worker's LLM call only; never send it to a client.
 * @throws {SecretDecryptionError} when APP_SECRET is not the one the key was stored with.
 */
export async function getModelWithKey(db: Database, id: string, appSecret: string): Promise<LlmModelWithKey> {
  // Read through the config cache: the worker calls this for every run.
  const row = await findInAgentConfig(db, (config) => config.models.find((model) => model.id === id));
  if (!row) throw new NotFoundError('Model', id);
  return { ...toModelView(row), apiKey: row.apiKeyEncrypted === null ? null : decryptSecret(row.apiKeyEncrypted, appSecret) };
}

export type ModelSeed = { baseUrl?: string; apiKey?: string; model?: string };

/**
 * The model new chats use when neither the chat nor its agent names one: the enabled model flagged
 * default, else the oldest enabled chat model everyone may use (`models` oldest first, as the config
 * snapshot holds them).
 */
export function defaultChatModel<Model extends LlmModelRow>(models: readonly Model[]): Model | undefined {
  return models.find((model) => model.enabled && model.isDefault) ?? models.find((model) => model.enabled && !model.adminsOnly && model.groupIds.length === 0 && answersChats(model));
}

/** defaultChatModel of every model, from the config cache. Null when there is none. */
export async function getDefaultModel(db: Database): Promise<LlmModelRow | null> {
  return defaultChatModel((await loadAgentConfig(db)).models) ?? null;
}

/**
 * Creates a model from LLM_BASE_URL / LLM_API_KEY / LLM_MODEL when both URL and model are set, and
 * makes it the default when it is created (the operator configured it on purpose).
 * Idempotent by (baseUrl, modelId): an existing match is left as the admin last edited it.
 * @example await seedModelFromEnv(db, { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL }, env.APP_SECRET)
 */
export async function seedModelFromEnv(db: Database, seed: ModelSeed, appSecret: string): Promise<{ model: LlmModel; created: boolean } | null> {
  const baseUrl = seed.baseUrl?.trim();
  const modelId = seed.model?.trim();
  if (!baseUrl || !modelId) return null;
  const [existing] = await db
    .select()
    .from(llmModels)
    .where(and(eq(llmModels.baseUrl, baseUrl), eq(llmModels.modelId, modelId)))
    .orderBy(asc(llmModels.createdAt))
    .limit(1);
  if (existing) return { model: toModelView(existing), created: false };
  const model = await createModel(db, { name: modelId, baseUrl, modelId, apiKey: seed.apiKey?.trim() || null, isDefault: true }, appSecret);
  return { model, created: true };
}
