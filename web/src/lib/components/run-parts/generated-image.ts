import { chatFileHref } from '../../chat/attachments.ts';

/** A picture a tool call made, as its card shows it: where to load it from and, for a stored file, where to open it. */
export type ShownImage = { src: string; href?: string; prompt: string };

const INLINE_PICTURE = /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/;

/**
 * The picture in a tool result's `metadata.image` (the image-generation tool): a file of the chat,
 * served by the chat's file route, or a small inline data URL outside a chat. Anything else is ignored.
 */
export function generatedImageOf(metadata: Record<string, unknown> | undefined): ShownImage | undefined {
  const image = metadata?.image;
  if (!image || typeof image !== 'object') return undefined;
  const { sessionId, fileId, dataUrl, prompt } = image as Record<string, unknown>;
  const alt = typeof prompt === 'string' ? prompt : '';
  if (typeof sessionId === 'string' && typeof fileId === 'string') {
    const href = chatFileHref(sessionId, fileId);
    return { src: href, href, prompt: alt };
  }
  if (typeof dataUrl === 'string' && INLINE_PICTURE.test(dataUrl)) return { src: dataUrl, prompt: alt };
  return undefined;
}
