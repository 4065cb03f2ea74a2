import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  user = await t.signUp('user');
});

afterAll(async () => {
  await t.close();
});

describe('bull-board at /admin/queues', () => {
  it('sends an anonymous browser to the login page, answers 401 to other anonymous requests and 403 to a non-admin', async () => {
    const page = await t.app.request('/admin/queues', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/login?next=%2Fadmin%2Fqueues');
    expect((await t.app.request('/admin/queues/api/queues')).status).toBe(401);
    expect((await t.app.request('/admin/queues', { headers: user.headers })).status).toBe(403);
    expect((await t.app.request('/admin/queues/api/queues', { headers: user.headers })).status).toBe(403);
    expect((await t.app.request('/admin/queues/static/images/logo.svg', { headers: user.headers })).status).toBe(403);
    // A non-admin's browser lands on the web app's styled 403 page.
    const forbidden = await t.app.request('/admin/queues', { headers: { ...user.headers, accept: 'text/html' } });
    expect(forbidden.status).toBe(302);
    expect(forbidden.headers.get('location')).toBe('/forbidden?page=%2Fadmin%2Fqueues');
  });

  it('serves the board and its assets through the mount path to an admin, with every catalog queue', async () => {
    const page = await t.app.request('/admin/queues', { headers: admin.headers });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<base href="/admin/queues/"');
    expect(html).not.toContain('fonts.googleapis.com');
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const response = await t.app.request(`/admin/queues/${asset}`, { headers: admin.headers });
      expect(response.status, asset).toBe(200);
    }
    const api = await t.app.request('/admin/queues/api/queues?activeQueue=chat-turns&status=latest&page=1', { headers: admin.headers });
    expect(api.status).toBe(200);
    const { queues } = await api.json();
    expect(queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['account-emails', 'chat-turns', 'knowledge-ingestions', 'schedule-fires', 'tool-executions', 'webhook-deliveries']);
    // Deep links into the board load the page too.
    expect((await t.app.request('/admin/queues/queue/chat-turns', { headers: admin.headers })).status).toBe(200);
    const slash = await t.app.request('/admin/queues/', { headers: admin.headers });
    expect(slash.status).toBe(301);
  });

  it("shows a first question's job without the question, the chat's system prompt or the user's custom instructions", async () => {
    const model = await t.app.request('/api/models', { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'Board model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' }) });
    expect(model.status).toBe(201);
    const instructions = await t.app.request('/api/auth/me', { method: 'PATCH', headers: user.headers, body: JSON.stringify({ customInstructions: 'I am a nurse in Lyon' }) });
    expect(instructions.status).toBe(200);
    const session = await (await t.app.request('/api/sessions', { method: 'POST', headers: user.headers, body: '{}' })).json();
    const sent = await t.app.request(`/api/sessions/${session.id}/runs`, { method: 'POST', headers: user.headers, body: JSON.stringify({ content: 'my private question', systemPrompt: 'Answer as my therapist' }) });
    expect(sent.status).toBe(202);
    const { runId } = await sent.json();
    // The job carries the question (the worker's opening); the board does not show it.
    await expect.poll(async () => (await t.queues.chatTurns.getJob(runId))?.data.opening?.question).toBe('my private question');
    expect((await t.queues.chatTurns.getJob(runId))?.data.opening?.options).toMatchObject({ systemPrompt: 'Answer as my therapist', userInstructions: 'I am a nurse in Lyon' });
    const board = await t.app.request('/admin/queues/api/queues?activeQueue=chat-turns&status=waiting&page=1', { headers: admin.headers });
    expect(board.status).toBe(200);
    const text = await board.text();
    expect(text).toContain(runId);
    for (const words of ['my private question', 'Answer as my therapist', 'I am a nurse in Lyon']) expect(text).not.toContain(words);
    for (const length of [19, 22, 20]) expect(text).toContain(`(${length} characters, not shown)`);
  });

  it('refuses cross-site writes made with the session cookie', async () => {
    const response = await t.app.request('/admin/queues/api/queues/chat-turns/pause', { method: 'PUT', headers: { ...admin.headers, origin: 'https://evil.example', host: 'localhost' } });
    expect(response.status).toBe(403);
    expect(await t.queues.chatTurns.isPaused()).toBe(false);
  });
});
