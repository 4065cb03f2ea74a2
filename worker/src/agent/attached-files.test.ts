import { chatSessions, llmModels, messages, runs } from '@agentq/shared/db';
import { acceptUpload, createChatSession, createModel, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { pdfWithPages } from '@agentq/shared/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatFileDownload } from './attached-files';
import { startAgentHarness, type AgentHarness } from './testing';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const CSV = Buffer.from('city,km\nLyon,465\nMarseille,775\n');

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness(() => ({ text: 'Lyon is nearer.' }));
  harness.startWorker();
});
afterAll(() => harness?.close());

async function upload(sessionId: string, name: string, data: Uint8Array) {
  const outcome = await acceptUpload(harness.db, { sessionId, userId: harness.userId, name, data });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.file;
}

describe('a question with attached files', () => {
  it('reaches the model as the image itself, the text file inlined and the PDF as its text, each named, while the history keeps only references', async () => {
    const [model] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.baseUrl, harness.llm.url));
    const session = await createChatSession(harness.db, harness.userId, {});
    const image = await upload(session.id, 'map.png', PNG);
    const table = await upload(session.id, 'distances.csv', CSV);
    const guide = await upload(session.id, 'guide.pdf', pdfWithPages(['Lyon: old town', 'Marseille: harbour']));
    const input = startRunInputSchema.parse({ content: 'Which city is nearer?', attachments: [image.id, table.id, guide.id], modelId: model!.id });
    const { run, opening } = await startChatRun(harness.db, { userId: harness.userId, session, input, parentMessageId: null });
    // The job cannot carry a question with files: the worker reads it from PostgreSQL.
    expect(opening).toBeUndefined();
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    expect(ended.status, ended.error ?? '').toBe('succeeded');

    const question = harness.llm.requests[0]!.messages.find((message) => message.role === 'user')!;
    expect(question.content).toEqual([
      { type: 'text', text: 'Attached file "map.png" (image/png):' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      { type: 'text', text: 'Attached file "distances.csv" (text/csv):' },
      { type: 'text', text: CSV.toString() },
      { type: 'text', text: 'Attached file "guide.pdf" (application/pdf, its text):' },
      { type: 'text', text: '[Page 1]\nLyon: old town\n\n[Page 2]\nMarseille: harbour' },
      { type: 'text', text: 'Which city is nearer?' },
    ]);

    // Stored: the question's parts name the files; neither the message nor the run's checkpoint holds their bytes.
    const [stored] = await harness.db.select({ parts: messages.parts }).from(messages).where(eq(messages.id, run.replyToMessageId!));
    expect(stored!.parts).toEqual([
      { type: 'file', mediaType: 'image/png', filename: 'map.png', url: `agentq-file:${image.id}` },
      { type: 'file', mediaType: 'text/csv', filename: 'distances.csv', url: `agentq-file:${table.id}` },
      { type: 'file', mediaType: 'application/pdf', filename: 'guide.pdf', url: `agentq-file:${guide.id}` },
      { type: 'text', text: 'Which city is nearer?' },
    ]);
    const [{ checkpoint }] = (await harness.db.select({ checkpoint: runs.checkpoint }).from(runs).where(eq(runs.id, run.id))) as [{ checkpoint: unknown }];
    expect(JSON.stringify(checkpoint)).toContain(`agentq-file:${image.id}`);
    expect(JSON.stringify(checkpoint)).not.toContain(PNG.toString('base64'));
    expect(JSON.stringify(checkpoint)).not.toContain('Marseille,775');
    expect(JSON.stringify(checkpoint)).not.toContain('harbour');

    // The next question's history carries the files again, read from the session.
    const [title] = await harness.db.select({ title: chatSessions.title }).from(chatSessions).where(eq(chatSessions.id, session.id));
    expect(title!.title).toBe('Which city is nearer?');
    const next = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Sure?', modelId: model!.id }) });
    await harness.enqueueRun(next.run.id);
    expect((await harness.waitForEnd(next.run.id)).status).toBe('succeeded');
    const again = harness.llm.requests[1]!.messages.filter((message) => message.role === 'user');
    expect(again).toHaveLength(2);
    expect(JSON.stringify(again[0]!.content)).toContain(PNG.toString('base64'));
  });

  it('names a chat asked with files alone after its first file, and refuses files of another chat', async () => {
    const session = await createChatSession(harness.db, harness.userId, {});
    const other = await createChatSession(harness.db, harness.userId, {});
    const elsewhere = await upload(other.id, 'other.txt', Buffer.from('not here'));
    await expect(
      startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Read it', attachments: [elsewhere.id] }) }),
    ).rejects.toMatchObject({ name: 'InvalidInputError', issues: [{ path: ['attachments', 0] }] });
    expect(await harness.db.select().from(runs).where(eq(runs.sessionId, session.id))).toEqual([]);

    const notes = await upload(session.id, 'notes.md', Buffer.from('# Notes'));
    const { run } = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: '  ', attachments: [notes.id] }) });
    const [title] = await harness.db.select({ title: chatSessions.title }).from(chatSessions).where(eq(chatSessions.id, session.id));
    expect(title!.title).toBe('notes.md');
    const [stored] = await harness.db.select({ parts: messages.parts }).from(messages).where(eq(messages.id, run.replyToMessageId!));
    expect(stored!.parts).toEqual([{ type: 'file', mediaType: 'text/markdown', filename: 'notes.md', url: `agentq-file:${notes.id}` }]);
  });

  it("downloads only the session's own files for the model, and leaves any other URL to the provider unfetched", async () => {
    const session = await createChatSession(harness.db, harness.userId, {});
    const other = await createChatSession(harness.db, harness.userId, {});
    const mine = await upload(session.id, 'map.png', PNG);
    const theirs = await upload(other.id, 'other.png', PNG);
    const download = chatFileDownload(harness.db, session.id);
    const planned = (url: string) => ({ url: new URL(url), isUrlSupportedByModel: false });
    expect(await download([])).toEqual([]);
    expect(await download([planned(`agentq-file:${mine.id}`), planned('http://127.0.0.1:9/elsewhere.png')])).toEqual([{ data: new Uint8Array(PNG), mediaType: 'image/png' }, null]);
    await expect(download([planned(`agentq-file:${theirs.id}`)])).rejects.toThrow(`An attached file (${theirs.id}) is no longer in this chat`);
  });

  it('gives a model that cannot see images a line saying an earlier image was left out, and the rest of the question', async () => {
    const blind = await createModel(harness.db, { name: `Blind ${Date.now()}`, baseUrl: harness.llm.url, modelId: 'fake-model', supportsImages: false }, harness.deps.config.appSecret);
    const [seeing] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(and(eq(llmModels.baseUrl, harness.llm.url), eq(llmModels.supportsImages, true)));
    const session = await createChatSession(harness.db, harness.userId, {});
    const image = await upload(session.id, 'map.png', PNG);
    const first = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'What is this?', attachments: [image.id], modelId: seeing!.id }) });
    await harness.enqueueRun(first.run.id);
    expect((await harness.waitForEnd(first.run.id)).status).toBe('succeeded');
    const before = harness.llm.requests.length;
    const next = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'And now?', modelId: blind.id }) });
    await harness.enqueueRun(next.run.id);
    expect((await harness.waitForEnd(next.run.id)).status).toBe('succeeded');
    const [question] = harness.llm.requests[before]!.messages.filter((message) => message.role === 'user');
    expect(question!.content).toEqual([
      { type: 'text', text: 'Attached image "map.png" left out: this model cannot see images.' },
      { type: 'text', text: 'What is this?' },
    ]);
  });
});
