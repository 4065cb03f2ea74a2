import { getContext, setContext } from 'svelte';
import { chatFileHref } from '../../chat/attachments.ts';

/** A picture a tool call made, as its card shows it: where to load it from and, for a stored file, where to open it. */
export type ShownImage = { src: string; href?: string; prompt: string };

/** Where a picture a tool call made (a file of session `sessionId`) is fetched from by this page. */
export type PictureHref = (sessionId: string, fileId: string) => string;

const PICTURE_HREF = Symbol('picture-href');

/** Makes the tool cards below fetch their pictures through `href` (a shared chat's page: the link's file route). */
export function setPictureHref(href: PictureHref): void {
  setContext(PICTURE_HREF, href);
}

/** This page's PictureHref: the chat's own file route unless a page above set another. */
export function pictureHref(): PictureHref {
  return getContext<PictureHref | undefined>(PICTURE_HREF) ?? chatFileHref;
}

const INLINE_PICTURE = /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/;

/**
 * The picture in a tool result's `metadata.image` (the image-generation tool): a file of the chat,
 * served by the chat's file route, or a small inline data URL outside a chat. Anything else is ignored.
 */
export function generatedImageOf(metadata: Record<string, unknown> | undefined, fileHref: PictureHref = chatFileHref): ShownImage | undefined {
  const image = metadata?.image;
  if (!image || typeof image !== 'object') return undefined;
  const { sessionId, fileId, dataUrl, prompt } = image as Record<string, unknown>;
  const alt = typeof prompt === 'string' ? prompt : '';
  if (typeof sessionId === 'string' && typeof fileId === 'string') {
    const href = fileHref(sessionId, fileId);
    return { src: href, href, prompt: alt };
  }
  if (typeof dataUrl === 'string' && INLINE_PICTURE.test(dataUrl)) return { src: dataUrl, prompt: alt };
  return undefined;
}
