import { chatFiles, messages, runs } from '@agentq/shared/db';
import { eq } from 'drizzle-orm';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel } from '@agentq/shared/services';
import { pdfWithPages } from '@agentq/shared/testing';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

let modelId: string;

beforeAll(async () => {
  t = await createTestApp();
  modelId = (await createModel(t.db, { name: 'Files test model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET)).id;
});
afterAll(() => t.close());

type Account = Awaited<ReturnType<typeof t.signUp>>;
type FileView = { id: string; name: string; mediaType: string; size: number };

const PNG = new Uint8Array(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));

const json = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

function upload(account: Account, sessionId: string, name: string, data: Uint8Array<ArrayBuffer> | string, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new File([data], name, { type }));
  return t.app.request(`/api/sessions/${sessionId}/files`, { method: 'POST', headers: { cookie: account.cookie }, body: form });
}

async function newSession(account: Account) {
  return (await (await json('POST', '/api/sessions', account, {})).json()) as { id: string };
}

async function uploaded(account: Account, sessionId: string, name: string, data: Uint8Array<ArrayBuffer> | string) {
  const response = await upload(account, sessionId, name, data);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as FileView;
}

describe('files attached to a chat', () => {
  it('uploads an image, a text file and a PDF, judged by their bytes, and serves them back to the owner only', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const session = await newSession(owner);

    // Declared as text, named .txt: the bytes say PNG.
    const image = await upload(owner, session.id, 'photo.txt', PNG, 'text/plain');
    expect(image.status).toBe(201);
    const view = (await image.json()) as FileView;
    expect(view).toEqual({ id: expect.stringMatching(/^fil_/), name: 'photo.txt', mediaType: 'image/png', size: PNG.length, createdAt: expect.any(String) });
    const served = await json('GET', `/api/sessions/${session.id}/files/${view.id}`, owner);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-disposition')).toMatch(/^inline; filename="photo\.txt"/);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);

    // A page someone uploads is text to us: served as plain text, as a download, never as HTML.
    const page = await uploaded(owner, session.id, '../../evil\u0007.html', '<script>alert(1)</script>');
    expect(page).toMatchObject({ name: 'evil.html', mediaType: 'text/html' });
    const text = await json('GET', `/api/sessions/${session.id}/files/${page.id}`, owner);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-disposition')).toMatch(/^attachment; filename="evil\.html"/);
    expect(await text.text()).toBe('<script>alert(1)</script>');

    // A PDF: kept when its text can be read, and served back as a download.
    const guide = await uploaded(owner, session.id, 'guide.pdf', pdfWithPages(['Lyon: old town']));
    expect(guide).toMatchObject({ name: 'guide.pdf', mediaType: 'application/pdf' });
    const pdf = await json('GET', `/api/sessions/${session.id}/files/${guide.id}`, owner);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(/^attachment; filename="guide\.pdf"/);

    // Another user: neither the session's uploads nor its files exist for them.
    expect((await json('GET', `/api/sessions/${session.id}/files/${view.id}`, other)).status).toBe(404);
    expect((await upload(other, session.id, 'a.txt', 'hello')).status).toBe(404);
    expect((await json('DELETE', `/api/sessions/${session.id}/files/${view.id}`, other)).status).toBe(404);
    // Nor does a file reached through another of the owner's sessions.
    const second = await newSession(owner);
    expect((await json('GET', `/api/sessions/${second.id}/files/${view.id}`, owner)).status).toBe(404);
  });

  it('refuses what is not an image, a readable PDF or UTF-8 text, too large a file and a malformed upload, storing nothing', async () => {
    const owner = await t.signUp();
    const session = await newSession(owner);
    const cases: [string, Uint8Array<ArrayBuffer> | string, number, RegExp][] = [
      ['blob.bin', new Uint8Array([0x00, 0x01, 0x02, 0xff]), 415, /Only images .*, PDF files and UTF-8 text files/],
      ['report.pdf', '%PDF-1.7\n%âãÏÓ', 415, /The PDF could not be read/],
      ['scan.pdf', pdfWithPages([null, null]), 415, /The PDF has no text to read \(a scan\?\)/],
      ['latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 415, /UTF-8 text/],
      ['empty.txt', '', 415, /empty/],
      ['big.txt', 'a'.repeat(512 * 1024 + 1), 413, /Text files can be up to 512 KiB/],
      ['big.png', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), 413, /Request body exceeds|Images can be up to 5 MiB/],
    ];
    for (const [name, data, status, message] of cases) {
      const refused = await upload(owner, session.id, name, data);
      expect(refused.status, name).toBe(status);
      expect((await refused.json()).error.message, name).toMatch(message);
    }
    const noFile = await t.app.request(`/api/sessions/${session.id}/files`, { method: 'POST', headers: owner.headers, body: JSON.stringify({ file: 'x' }) });
    expect(noFile.status).toBe(400);
    expect((await noFile.json()).error.message).toMatch(/multipart\/form-data/);
    const malformed = await t.app.request(`/api/sessions/${session.id}/files`, {
      method: 'POST',
      headers: { cookie: owner.cookie, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated',
    });
    expect(malformed.status).toBe(400);
    expect(await t.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.sessionId, session.id))).toEqual([]);
  });

  it('sends a message with its files, refuses files of another chat, and keeps a sent file until the chat goes', async () => {
    const owner = await t.signUp();
    const session = await newSession(owner);
    const other = await newSession(owner);
    const image = await uploaded(owner, session.id, 'map.png', PNG);
    const notes = await uploaded(owner, session.id, 'notes.md', '# Trip');
    const foreign = await uploaded(owner, other.id, 'elsewhere.txt', 'not this chat');

    for (const [body, path] of [
      [{ content: 'Look', attachments: [image.id, foreign.id] }, ['attachments', 1]],
      [{ content: '' }, ['content']],
      [{ content: 'Many', attachments: Array.from({ length: 11 }, () => image.id) }, ['attachments']],
    ] as const) {
      const refused = await json('POST', `/api/sessions/${session.id}/runs`, owner, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect((await refused.json()).error.issues[0].path).toEqual(path);
    }
    expect(await t.db.select().from(runs).where(eq(runs.sessionId, session.id))).toEqual([]);

    // A model that cannot see images is not sent one; a text file is fine.
    const blind = await createModel(t.db, { name: 'Text-only model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'text-only', apiKey: null, supportsImages: false }, TEST_APP_SECRET);
    const refused = await json('POST', `/api/sessions/${session.id}/runs`, owner, { content: 'Look', attachments: [notes.id, image.id], modelId: blind.id });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { message: 'Text-only model cannot see images: pick a model that can, or leave the images out', issues: [{ path: ['attachments', 1] }] } });
    expect(await t.db.select().from(runs).where(eq(runs.sessionId, session.id))).toEqual([]);

    const sent = await json('POST', `/api/sessions/${session.id}/runs`, owner, { content: 'Plan the trip', attachments: [image.id, notes.id], modelId });
    expect(sent.status).toBe(202);
    const detail = await (await json('GET', `/api/sessions/${session.id}`, owner)).json();
    expect(detail.messages[0].parts).toEqual([
      { type: 'file', mediaType: 'image/png', filename: 'map.png', url: `agentq-file:${image.id}` },
      { type: 'file', mediaType: 'text/markdown', filename: 'notes.md', url: `agentq-file:${notes.id}` },
      { type: 'text', text: 'Plan the trip' },
    ]);

    // A sent file stays with its message; an upload taken off before sending can go.
    const kept = await json('DELETE', `/api/sessions/${session.id}/files/${image.id}`, owner);
    expect(kept.status).toBe(409);
    const spare = await uploaded(owner, session.id, 'spare.txt', 'unused');
    expect((await json('DELETE', `/api/sessions/${session.id}/files/${spare.id}`, owner)).status).toBe(204);
    expect((await json('GET', `/api/sessions/${session.id}/files/${spare.id}`, owner)).status).toBe(404);

    // The chat's files go with it.
    const [run] = await t.db.select().from(runs).where(eq(runs.sessionId, session.id));
    await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, run!.id));
    expect((await json('DELETE', `/api/sessions/${session.id}`, owner)).status).toBe(204);
    expect(await t.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.sessionId, session.id))).toEqual([]);
    expect(await t.db.select({ id: messages.id }).from(messages).where(eq(messages.sessionId, session.id))).toEqual([]);
  });

  it("shows a shared chat's files to readers of the link only as shared, copies them into a saved copy, and keeps them out of imports", async () => {
    const owner = await t.signUp();
    const reader = await t.signUp();
    const session = await newSession(owner);
    const image = await uploaded(owner, session.id, 'map.png', PNG);
    const notes = await uploaded(owner, session.id, 'notes.md', '# Trip');
    const sent = await json('POST', `/api/sessions/${session.id}/runs`, owner, { content: 'Plan the trip', attachments: [image.id, notes.id], modelId });
    expect(sent.status).toBe(202);
    const finish = async () => t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.sessionId, session.id));
    await finish();
    const made = await json('PUT', `/api/sessions/${session.id}/share`, owner);
    expect(made.status).toBe(201);
    const share = (await made.json()) as { id: string };

    // Sent after the link was made, or never sent: not the reader's to see until the owner updates the link.
    const later = await uploaded(owner, session.id, 'later.txt', 'sent after sharing');
    expect((await json('POST', `/api/sessions/${session.id}/runs`, owner, { content: 'And this', attachments: [later.id], modelId })).status).toBe(202);
    await finish();
    const unsent = await uploaded(owner, session.id, 'unsent.txt', 'never sent');
    const elsewhere = await uploaded(owner, (await newSession(owner)).id, 'elsewhere.png', PNG);

    const view = (await (await json('GET', `/api/shared/${share.id}`, reader)).json()) as { messages: { role: string; parts: unknown[] }[] };
    expect(view.messages[0]!.parts).toEqual([
      { type: 'file', mediaType: 'image/png', filename: 'map.png', url: `agentq-file:${image.id}` },
      { type: 'file', mediaType: 'text/markdown', filename: 'notes.md', url: `agentq-file:${notes.id}` },
      { type: 'text', text: 'Plan the trip' },
    ]);
    const picture = await json('GET', `/api/shared/${share.id}/files/${image.id}`, reader);
    expect(picture.status).toBe(200);
    expect(new Uint8Array(await picture.arrayBuffer())).toEqual(PNG);
    expect(picture.headers.get('content-type')).toBe('image/png');
    expect(picture.headers.get('content-disposition')).toMatch(/^inline; filename="map\.png"/);
    const text = await json('GET', `/api/shared/${share.id}/files/${notes.id}`, reader);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-disposition')).toMatch(/^attachment; filename="notes\.md"/);
    for (const fileId of [later.id, unsent.id, elsewhere.id, 'fil_nothing']) {
      expect((await json('GET', `/api/shared/${share.id}/files/${fileId}`, reader)).status, fileId).toBe(404);
    }
    expect((await json('GET', `/api/shared/not-a-link/files/${image.id}`, reader)).status).toBe(400);
    expect((await t.app.request(`/api/shared/${share.id}/files/${image.id}`)).status).toBe(401);
    // Once the link is updated, it shows what was sent since.
    expect((await json('PUT', `/api/sessions/${session.id}/share`, owner)).status).toBe(200);
    expect((await json('GET', `/api/shared/${share.id}/files/${later.id}`, reader)).status).toBe(200);
    expect((await json('GET', `/api/shared/${share.id}/files/${unsent.id}`, reader)).status).toBe(404);

    // The owner's fork of the chat has copies too, in the new chat.
    const question = ((await (await json('GET', `/api/sessions/${session.id}`, owner)).json()) as { messages: { id: string }[] }).messages[0]!;
    const forked = await json('POST', `/api/sessions/${session.id}/messages/${question.id}/fork`, owner);
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { id: string };
    const forkParts = ((await (await json('GET', `/api/sessions/${fork.id}`, owner)).json()) as { messages: { parts: { type: string; url?: string }[] }[] }).messages[0]!.parts;
    const forkImage = forkParts.find((part) => part.type === 'file')!.url!.replace('agentq-file:', '');
    expect(forkImage).not.toBe(image.id);
    expect(new Uint8Array(await (await json('GET', `/api/sessions/${fork.id}/files/${forkImage}`, owner)).arrayBuffer())).toEqual(PNG);

    // The reader's copy has files of its own: new ids in the reader's chat, the same bytes, kept when the original goes.
    const copied = await json('POST', `/api/shared/${share.id}/copy`, reader);
    expect(copied.status).toBe(201);
    const copy = (await copied.json()) as { id: string };
    const copyDetail = (await (await json('GET', `/api/sessions/${copy.id}`, reader)).json()) as { messages: { parts: { type: string; url?: string; filename?: string }[] }[] };
    const copiedFiles = copyDetail.messages.flatMap((message) => message.parts.filter((part) => part.type === 'file'));
    expect(copiedFiles.map((part) => part.filename)).toEqual(['map.png', 'notes.md', 'later.txt']);
    const copiedIds = copiedFiles.map((part) => part.url!.replace('agentq-file:', ''));
    expect(copiedIds).not.toContain(image.id);
    expect((await t.db.select({ userId: chatFiles.userId }).from(chatFiles).where(eq(chatFiles.sessionId, copy.id))).map((row) => row.userId)).toEqual([reader.user.id, reader.user.id, reader.user.id]);
    expect((await json('GET', `/api/sessions/${copy.id}/files/${copiedIds[0]}`, owner)).status).toBe(404);
    expect((await json('DELETE', `/api/sessions/${session.id}`, owner)).status).toBe(204);
    expect((await json('GET', `/api/shared/${share.id}/files/${image.id}`, reader)).status).toBe(404);
    const kept = await json('GET', `/api/sessions/${copy.id}/files/${copiedIds[0]}`, reader);
    expect(kept.status).toBe(200);
    expect(new Uint8Array(await kept.arrayBuffer())).toEqual(PNG);

    // An import names files but never gets them: a part naming someone's file is left out, and counted.
    const imported = await json('POST', '/api/sessions/import', reader, {
      format: 'agentq.chat.v1',
      messages: [{ role: 'user', parts: [{ type: 'file', mediaType: 'image/png', filename: 'x.png', url: `agentq-file:${elsewhere.id}` }, { type: 'text', text: 'Mine now?' }] }],
    });
    expect(imported.status).toBe(201);
    const importedChat = ((await imported.json()) as { items: { id: string; droppedParts: number }[] }).items[0]!;
    expect(importedChat.droppedParts).toBe(1);
    expect(await t.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.sessionId, importedChat.id))).toEqual([]);
  });

  it('downloads every chat with the files its messages carry as one ZIP whose chats.json an import takes back', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const trip = await newSession(owner);
    const image = await uploaded(owner, trip.id, 'map.png', PNG);
    const notes = await uploaded(owner, trip.id, '笔记.md', '# Trip');
    expect((await json('POST', `/api/sessions/${trip.id}/runs`, owner, { content: 'Plan the trip', attachments: [image.id, notes.id], modelId })).status).toBe(202);
    await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.sessionId, trip.id));
    const unsent = await uploaded(owner, trip.id, 'unsent.txt', 'never sent');
    const plain = await newSession(owner);
    expect((await json('POST', `/api/sessions/${plain.id}/runs`, owner, { content: 'No files here', modelId })).status).toBe(202);
    const theirs = await newSession(other);
    const theirFile = await uploaded(other, theirs.id, 'theirs.txt', 'not yours');
    expect((await json('POST', `/api/sessions/${theirs.id}/runs`, other, { content: 'Mine', attachments: [theirFile.id], modelId })).status).toBe(202);

    const response = await json('GET', '/api/sessions/export?format=zip', owner);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="agentq-chats-\d{4}-\d{2}-\d{2}\.zip"/);
    const entries = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual(['chats.json', `files/${image.id}/map.png`, `files/${notes.id}/笔记.md`].sort());
    expect(entries[`files/${image.id}/map.png`]).toEqual(PNG);
    expect(new TextDecoder().decode(entries[`files/${notes.id}/笔记.md`])).toBe('# Trip');
    const chats = JSON.parse(new TextDecoder().decode(entries['chats.json'])) as { session: { id: string }; messages: { parts: { url?: string }[] }[] }[];
    expect(chats.map((chat) => chat.session.id)).toEqual([trip.id, plain.id]);
    expect(chats[0]!.messages[0]!.parts.map((part) => part.url)).toEqual([`agentq-file:${image.id}`, `agentq-file:${notes.id}`, undefined]);
    expect(JSON.stringify(chats)).not.toContain(unsent.id);
    // The same chats as the JSON download, which an import takes back.
    const withoutTime = (list: unknown) => (list as { exportedAt?: string }[]).map(({ exportedAt: _, ...chat }) => chat);
    expect(withoutTime(chats)).toEqual(withoutTime(await (await json('GET', '/api/sessions/export', owner)).json()));
    expect((await json('POST', '/api/sessions/import', other, chats)).status).toBe(201);

    // Nothing of yours: an archive of an empty list; a format we do not make: 400.
    const empty = unzipSync(new Uint8Array(await (await json('GET', '/api/sessions/export?format=zip', await t.signUp())).arrayBuffer()));
    expect(Object.keys(empty)).toEqual(['chats.json']);
    expect(JSON.parse(new TextDecoder().decode(empty['chats.json']))).toEqual([]);
    const tar = await json('GET', '/api/sessions/export?format=tar', owner);
    expect(tar.status).toBe(400);
    expect((await tar.json()).error.issues[0].path).toEqual(['format']);
  });
});
