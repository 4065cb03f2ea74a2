import { z } from 'zod';

/** The sizes OpenAI-compatible image endpoints agree on: square, portrait, landscape. */
export const IMAGE_SIZES = ['1024x1024', '1024x1792', '1792x1024'] as const;

/** An `image-generation` instance: the size a call gets when it names none, and how long the model may take. */
export const imageGenerationConfigSchema = z.object({
  size: z.enum(IMAGE_SIZES).default('1024x1024').describe('The picture size when a call names none: 1024x1024 (square), 1024x1792 (portrait) or 1792x1024 (landscape).'),
  timeoutMs: z.number().int().min(5_000).max(300_000).default(120_000).describe('Milliseconds the image model may take for one picture, up to 300000.'),
});
export type ImageGenerationToolConfig = z.infer<typeof imageGenerationConfigSchema>;

export const imageGenerationInputSchema = z.object({
  prompt: z.string().trim().min(1).max(4000).describe('What the picture shows, in detail: subject, setting, style, colours, composition'),
  size: z.enum(IMAGE_SIZES).optional().describe('1024x1024 (square), 1024x1792 (portrait) or 1792x1024 (landscape); the tool\'s default when left out'),
});
export type ImageGenerationToolInput = z.infer<typeof imageGenerationInputSchema>;
