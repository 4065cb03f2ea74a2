import { z } from 'zod';

/** What a `knowledge` instance searches besides its attached bases, for the user whose chat calls it. */
export const KNOWLEDGE_USER_BASES = ['none', 'shared', 'own-and-shared'] as const;

/**
 * A `knowledge` instance: which bases it reads (ids the creating admin owns), whether it also reads the
 * bases the asking user may read, and how many passages a search returns.
 */
export const knowledgeConfigSchema = z.object({
  knowledgeBaseIds: z
    .array(z.string().min(1).max(100))
    .max(20)
    .default([])
    .describe('Ids of the knowledge bases this tool searches (the Knowledge page shows their ids); only bases you own can be attached.'),
  userBases: z
    .enum(KNOWLEDGE_USER_BASES)
    .default('none')
    .describe(
      "Also search bases that depend on who asks: 'shared' adds the bases an admin shared with the asking user (with everyone or a group they are in); 'own-and-shared' adds their own bases too; 'none' searches only the attached ones.",
    ),
  topK: z.number().int().min(1).max(20).default(5).describe('Passages a search returns, best first (1 to 20).'),
});
export type KnowledgeToolConfig = z.infer<typeof knowledgeConfigSchema>;

export const knowledgeInputSchema = z.object({
  query: z.string().trim().min(1).max(1000).describe('What to look up, in words likely to occur in the reference files'),
});
export type KnowledgeToolInput = z.infer<typeof knowledgeInputSchema>;
