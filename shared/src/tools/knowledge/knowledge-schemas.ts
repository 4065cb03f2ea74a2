import { z } from 'zod';

/** A `knowledge` instance: which bases it reads (ids the creating admin owns) and how many passages a search returns. */
export const knowledgeConfigSchema = z.object({
  knowledgeBaseIds: z
    .array(z.string().min(1).max(100))
    .max(20)
    .default([])
    .describe('Ids of the knowledge bases this tool searches (the Knowledge page shows their ids); only bases you own can be attached.'),
  topK: z.number().int().min(1).max(20).default(5).describe('Passages a search returns, best first (1 to 20).'),
});
export type KnowledgeToolConfig = z.infer<typeof knowledgeConfigSchema>;

export const knowledgeInputSchema = z.object({
  query: z.string().trim().min(1).max(1000).describe('What to look up, in words likely to occur in the reference files'),
});
export type KnowledgeToolInput = z.infer<typeof knowledgeInputSchema>;
