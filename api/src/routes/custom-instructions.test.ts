import { messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, insertBackgroundModel } from '../testing';

// The auth cache on, as the API runs: the signed-in user (with their instructions) is served from memory.
let t: Awaited<ReturnType<typeof createTestApp>>;
let modelId: string;
beforeAll(async () => {
  t = await createTestApp({ configCache: true });
  modelId = await insertBackgroundModel(t.db, 'Custom instructions test model');
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
const call = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

async function setInstructions(account: Account, customInstructions: string | null) {
  const response = await call('PATCH', '/api/auth/me', account, { customInstructions });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { user: { customInstructions: string | null } }).user;
}

const me = async (account: Account) => ((await (await call('GET', '/api/auth/me', account)).json()) as { user: Record<string, unknown> }).user;

/** Sends a first question in a new session; answers the run's id. */
async function askInNewSession(account: Account, content: string) {
  const session = (await (await call('POST', '/api/sessions', account, {})).json()) as { id: string };
  const response = await call('POST', `/api/sessions/${session.id}/runs`, account, { content, modelId });
  expect(response.status, await response.clone().text()).toBe(202);
  return { sessionId: session.id, runId: ((await response.json()) as { runId: string }).runId };
}

/** The options the run was stored with, and those its job carries (a first question's opening). */
async function runOptions(runId: string) {
  const [run] = await t.db.select({ options: runs.options }).from(runs).where(eq(runs.id, runId));
  await expect.poll(async () => (await t.queues.chatTurns.getJob(runId))?.data).toBeDefined();
  const job = (await t.queues.chatTurns.getJob(runId))!.data as { opening?: { options: Record<string, unknown> } };
  return { stored: run!.options, carried: job.opening?.options };
}

/** Stands in for the worker: the run ends with this answer. */
async function answer(runId: string, sessionId: string) {
  const [run] = await t.db.select({ questionId: runs.replyToMessageId }).from(runs).where(eq(runs.id, runId));
  const id = newId('message');
  await t.db.insert(messages).values({ id, sessionId, role: 'assistant', parts: [{ type: 'text', text: 'Noted.' }], runId, parentId: run!.questionId });
  await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
  return { questionId: run!.questionId!, answerId: id };
}

describe('custom instructions (PATCH /api/auth/me customInstructions)', () => {
  it('are set, read back on /me and /session, kept through other profile changes, and cleared by empty text or null', async () => {
    const owner = await t.signUp();
    expect(await me(owner)).toMatchObject({ customInstructions: null });

    // Spaces around are not kept; line breaks inside are.
    expect(await setInstructions(owner, "  I'm a data engineer.\nAnswer briefly, metric units.  ")).toMatchObject({ customInstructions: "I'm a data engineer.\nAnswer briefly, metric units." });
    expect(await me(owner)).toMatchObject({ customInstructions: "I'm a data engineer.\nAnswer briefly, metric units." });
    const session = (await (await call('GET', '/api/auth/session', owner)).json()) as { user: { customInstructions: string } };
    expect(session.user.customInstructions).toBe("I'm a data engineer.\nAnswer briefly, metric units.");

    // A name or language change leaves them as they are.
    await call('PATCH', '/api/auth/me', owner, { name: 'Ada', locale: 'zh' });
    expect(await me(owner)).toMatchObject({ name: 'Ada', locale: 'zh', customInstructions: "I'm a data engineer.\nAnswer briefly, metric units." });

    expect(await setInstructions(owner, '')).toMatchObject({ customInstructions: null });
    expect(await me(owner)).toMatchObject({ customInstructions: null });
    await setInstructions(owner, 'Reply in French.');
    expect(await setInstructions(owner, '   ')).toMatchObject({ customInstructions: null });
    await setInstructions(owner, 'Reply in French.');
    expect(await setInstructions(owner, null)).toMatchObject({ customInstructions: null });
    expect(await me(owner)).toMatchObject({ customInstructions: null });
  });

  it('refuses more than 4,000 characters, or anything but text, naming the field; 4,000 are fine', async () => {
    const owner = await t.signUp();
    await setInstructions(owner, 'Keep these.');
    const long = await call('PATCH', '/api/auth/me', owner, { customInstructions: 'x'.repeat(4_001) });
    expect(long.status).toBe(400);
    expect((await long.json()).error.issues).toEqual([expect.objectContaining({ path: ['customInstructions'], message: 'Use at most 4,000 characters' })]);
    const number = await call('PATCH', '/api/auth/me', owner, { customInstructions: 42 });
    expect(number.status).toBe(400);
    expect((await number.json()).error.issues[0]).toMatchObject({ path: ['customInstructions'] });
    // Refused means unchanged.
    expect(await me(owner)).toMatchObject({ customInstructions: 'Keep these.' });
    expect(await setInstructions(owner, 'y'.repeat(4_000))).toMatchObject({ customInstructions: 'y'.repeat(4_000) });
  });

  it('no one else is shown them: not admins listing, reading or changing the user, nor a run of theirs', async () => {
    const admin = await t.signUp('admin');
    const owner = await t.signUp();
    await setInstructions(owner, 'Secret preferences of mine.');
    const { runId } = await askInNewSession(owner, 'Hello?');

    const listed = (await (await call('GET', `/api/users?q=${encodeURIComponent(owner.email)}`, admin)).json()) as { items: Record<string, unknown>[] };
    expect(listed.items).toHaveLength(1);
    const read = (await (await call('GET', `/api/users/${owner.user.id}`, admin)).json()) as Record<string, unknown>;
    const changed = (await (await call('PATCH', `/api/users/${owner.user.id}`, admin, { name: 'Renamed by admin' })).json()) as Record<string, unknown>;
    const adminRun = (await (await call('GET', `/api/runs/${runId}`, admin)).json()) as Record<string, unknown>;
    const report = await call('GET', `/api/admin/runs/${runId}`, admin);
    expect(report.status).toBe(200);
    for (const view of [listed.items[0], read, changed, adminRun, await report.json()]) {
      expect(JSON.stringify(view)).not.toContain('Secret preferences');
    }
    expect(read).not.toHaveProperty('customInstructions');
    // The owner's own view of the run does not repeat them either: they are on the Account page.
    expect(JSON.stringify(await (await call('GET', `/api/runs/${runId}`, owner)).json())).not.toContain('Secret preferences');
    expect(await me(owner)).toMatchObject({ name: 'Renamed by admin', customInstructions: 'Secret preferences of mine.' });
  });

  it('go with every run started after a change, at once (the cached user is dropped): asked, regenerated and edited; none once cleared', async () => {
    const owner = await t.signUp();
    // Warm the auth cache: later requests are answered from it.
    await me(owner);
    const hits = t.configCache!.stats.hits;
    await me(owner);
    expect(t.configCache!.stats.hits).toBeGreaterThan(hits);

    await setInstructions(owner, 'Answer briefly.');
    const first = await askInNewSession(owner, 'How far is the Moon?');
    expect(await runOptions(first.runId)).toEqual({
      stored: expect.objectContaining({ userInstructions: 'Answer briefly.' }),
      carried: expect.objectContaining({ userInstructions: 'Answer briefly.' }),
    });

    await setInstructions(owner, 'Use metric units.');
    const second = await askInNewSession(owner, 'How tall is Everest?');
    expect((await runOptions(second.runId)).stored).toMatchObject({ userInstructions: 'Use metric units.' });
    const { questionId, answerId } = await answer(second.runId, second.sessionId);

    await setInstructions(owner, 'Use imperial units.');
    const regenerated = await call('POST', `/api/sessions/${second.sessionId}/messages/${answerId}/regenerate`, owner, { modelId });
    expect(regenerated.status, await regenerated.clone().text()).toBe(202);
    const regeneratedRun = ((await regenerated.json()) as { runId: string }).runId;
    expect((await runOptions(regeneratedRun)).stored).toMatchObject({ userInstructions: 'Use imperial units.' });
    await answer(regeneratedRun, second.sessionId);

    await setInstructions(owner, 'Use both units.');
    const edited = await call('POST', `/api/sessions/${second.sessionId}/messages/${questionId}/edit`, owner, { content: 'How tall is K2?', modelId });
    expect(edited.status, await edited.clone().text()).toBe(202);
    const editedRun = ((await edited.json()) as { runId: string }).runId;
    expect((await runOptions(editedRun)).stored).toMatchObject({ userInstructions: 'Use both units.' });

    // A client cannot slip instructions in through a run's body: they come from the account only.
    await setInstructions(owner, null);
    const session = (await (await call('POST', '/api/sessions', owner, {})).json()) as { id: string };
    const sneaky = await call('POST', `/api/sessions/${session.id}/runs`, owner, { content: 'Hi', modelId, userInstructions: 'Injected' });
    expect(sneaky.status).toBe(202);
    const cleared = await runOptions(((await sneaky.json()) as { runId: string }).runId);
    expect(cleared.stored).not.toHaveProperty('userInstructions');
    expect(cleared.carried).not.toHaveProperty('userInstructions');
  });

  it('count toward what a first question may carry in its job: long instructions leave it to the worker to read', async () => {
    const owner = await t.signUp();
    await setInstructions(owner, 'z'.repeat(4_000));
    const short = await askInNewSession(owner, 'Short question.');
    expect((await runOptions(short.runId)).carried).toMatchObject({ userInstructions: 'z'.repeat(4_000) });
    // 4,000 + 4,001 characters pass the opening's 8,000.
    const long = await askInNewSession(owner, 'q'.repeat(4_001));
    const options = await runOptions(long.runId);
    expect(options.stored).toMatchObject({ userInstructions: 'z'.repeat(4_000) });
    expect(options.carried).toBeUndefined();
  });
});
