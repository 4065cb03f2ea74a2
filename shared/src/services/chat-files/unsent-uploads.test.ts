import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client';
import { chatFiles, messages, users } from '../../db/schema';
import { newId } from '../../ids';
import { bothTestDatabases } from '../../testing';
import { createChatSession } from '../chat';
import { InvalidInputError } from '../errors';
import { acceptUpload, attachmentParts, deleteUnsentUploads, UNSENT_UPLOAD_TTL_MS } from './chat-files';
import { chatFileUrl } from './judge-upload';

describe.each(bothTestDatabases)('uploads no message carried, on %s', (_name, open) => {
  let database: DbHandle;
  const userId = newId('user');

  beforeAll(async () => {
    database = await open();
    await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'Uploader', passwordHash: 'x', role: 'user' });
  }, 240_000);
  afterAll(() => database.close());

  async function upload(sessionId: string, name: string, ageMs: number) {
    const outcome = await acceptUpload(database.db, { sessionId, userId, name, data: new TextEncoder().encode(`${name} text`) });
    if (!outcome.ok) throw new Error(outcome.message);
    await database.db
      .update(chatFiles)
      .set({ createdAt: sql`now() - make_interval(secs => ${ageMs / 1000})` })
      .where(eq(chatFiles.id, outcome.file.id));
    return outcome.file.id;
  }

  it('deletes uploads left behind for a day, and never a sent file or a recent upload', async () => {
    const session = await createChatSession(database.db, userId, {});
    const other = await createChatSession(database.db, userId, {});
    const day = UNSENT_UPLOAD_TTL_MS;
    const sent = await upload(session.id, 'sent.txt', 2 * day);
    const abandoned = await upload(session.id, 'abandoned.txt', day + 60_000);
    const recent = await upload(session.id, 'recent.txt', day - 60_000);
    // Carried by a message of another chat only: still left behind in its own.
    const namedElsewhere = await upload(session.id, 'elsewhere.txt', 2 * day);
    await database.db.insert(messages).values([
      { id: newId('message'), sessionId: session.id, role: 'user', parts: [{ type: 'file', mediaType: 'text/plain', filename: 'sent.txt', url: chatFileUrl(sent) }, { type: 'text', text: 'see' }] },
      { id: newId('message'), sessionId: other.id, role: 'user', parts: [{ type: 'file', mediaType: 'text/plain', filename: 'elsewhere.txt', url: chatFileUrl(namedElsewhere) }] },
    ]);

    expect(await deleteUnsentUploads(database.db)).toBe(2);
    const left = await database.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.sessionId, session.id));
    expect(left.map((row) => row.id).sort()).toEqual([sent, recent].sort());
    expect(left.map((row) => row.id)).not.toContain(abandoned);
    expect(await deleteUnsentUploads(database.db)).toBe(0);
  });

  it('keeps an old upload a send has just checked (its message not written yet), and refuses one the sweep took first', async () => {
    const session = await createChatSession(database.db, userId, {});
    const sending = await upload(session.id, 'sending.txt', UNSENT_UPLOAD_TTL_MS + 60_000);
    const swept = await upload(session.id, 'swept.txt', UNSENT_UPLOAD_TTL_MS + 60_000);

    expect(await attachmentParts(database.db, session.id, [sending])).toEqual([expect.objectContaining({ filename: 'sending.txt', url: chatFileUrl(sending) })]);
    expect(await deleteUnsentUploads(database.db)).toBe(1);
    const left = await database.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.sessionId, session.id));
    expect(left.map((row) => row.id)).toEqual([sending]);
    await expect(attachmentParts(database.db, session.id, [swept])).rejects.toThrow(InvalidInputError);
  });
});
