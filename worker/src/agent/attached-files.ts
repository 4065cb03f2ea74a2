import type { Database } from '@agentq/shared/db';
import { chatFileIdOf, modelMediaType, readChatFilesForModel } from '@agentq/shared/services';
import type { UIMessage } from 'ai';

type Parts = UIMessage['parts'];
type PlannedDownload = { url: URL; isUrlSupportedByModel: boolean };
type Downloaded = { data: Uint8Array; mediaType: string | undefined } | null;

/** A model call's downloads (the AI SDK's `experimental_download`). */
export type ModelDownload = (downloads: PlannedDownload[]) => PromiseLike<Downloaded[]>;

/**
 * A question's attached files as the model reads them: each file part after a line naming it, so the
 * model can tell which image or text is which ("the CSV I sent"); a PDF goes as its text, and an
 * image to a model that cannot see images (`seesImages` false) as a line saying it was left out. The
 * file part itself stays a reference (`agentq-file:<id>`) in the history and its checkpoints;
 * chatFileDownload gives the bytes.
 */
export function labelAttachedFiles(parts: Parts, seesImages: boolean): Parts {
  if (!parts.some((part) => part.type === 'file' && chatFileIdOf(part.url))) return parts;
  return parts.flatMap((part): Parts => {
    if (part.type !== 'file' || !chatFileIdOf(part.url)) return [part];
    const name = part.filename ?? 'file';
    if (part.mediaType.startsWith('image/') && !seesImages) return [{ type: 'text', text: `Attached image "${name}" left out: this model cannot see images.` }];
    const mediaType = modelMediaType(part.mediaType);
    return [{ type: 'text', text: `Attached file "${name}" (${part.mediaType}${mediaType === part.mediaType ? '' : ', its text'}):` }, { ...part, mediaType }];
  });
}

/**
 * The downloads of a run's model calls: files attached in its session come from PostgreSQL (read
 * once per run, whatever the steps), checked to be the session's. Any other URL is left to the model
 * provider as the URL it is: the worker fetches nothing a message or a tool result names.
 */
export function chatFileDownload(db: Database, sessionId: string | null): ModelDownload {
  const files = new Map<string, Promise<{ mediaType: string; data: Uint8Array } | undefined>>();
  return async (downloads) => {
    if (downloads.length === 0) return [];
    const ids = downloads.map((download) => chatFileIdOf(download.url.href));
    const unread = [...new Set(ids.filter((id): id is string => id !== undefined && !files.has(id)))];
    if (unread.length > 0) {
      const read = sessionId ? readChatFilesForModel(db, sessionId, unread) : Promise.resolve(new Map());
      for (const id of unread) files.set(id, read.then((byId) => byId.get(id)));
    }
    return Promise.all(
      ids.map(async (id) => {
        if (id === undefined) return null;
        const file = await files.get(id);
        // Deleted with its chat while the run was going: the run fails with this rather than sending the model a URL it cannot open.
        if (!file) throw new Error(`An attached file (${id}) is no longer in this chat`);
        return { data: file.data, mediaType: file.mediaType };
      }),
    );
  };
}
