import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookDeliveries, webhookEndpoints } from '@agentq/shared/db';
import { enqueue, type JobPayload } from '@agentq/shared/queues';
import { createWorkerRedis } from '@agentq/shared/redis';
import { approvalsForRun, createWebhookEndpoint, emitWebhookEvent, pingEvent, runEndedEvent, sendWebhook, startConfigCache, updateWebhookEndpoint, verifyWebhookSignature, WEBHOOK_DISABLE_AFTER_FAILURES, webhookSubscribers } from '@agentq/shared/services';
import { openTestDb, testRedisUrl } from '@agentq/shared/testing';
import type { Job } from 'bullmq';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sequence, type Turn } from '../../../infra/fake-llm/scripts';
import { startAgentHarness, type AgentHarness } from '../agent/testing';
import { processWebhookDelivery } from './webhook-delivery';

/** A webhook receiver on loopback: records every request; each path answers with the statuses queued for it, then 200. */
type Received = { path: string; headers: IncomingHttpHeaders; body: string };
let receiver: Server;
let origin: string;
const received: Received[] = [];
const answers = new Map<string, number[]>();

let harness: AgentHarness;
const script = (turns: Turn[]) => harness.llm.setScript(sequence(turns, { countFrom: 'last-user-message' }));

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const status = answers.get(request.url ?? '')?.shift() ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : `nope ${'!'.repeat(2_000)}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  harness = await startAgentHarness([{ text: 'unused' }]);
  harness.startWorker();
});

afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

beforeEach(async () => {
  // Each test subscribes endpoints of its own: the harness user's earlier ones go.
  await harness.db.delete(webhookEndpoints).where(eq(webhookEndpoints.userId, harness.userId));
});

/** An endpoint of the harness user on the receiver (the worker runs with FETCH_ALLOW_PRIVATE_NETWORKS on). */
const subscribe = (path: string, events: ('run.completed' | 'run.failed' | 'run.cancelled' | 'approval.requested')[]) =>
  createWebhookEndpoint(harness.db, harness.userId, { url: `${origin}${path}`, events }, { allowPrivateNetworks: true, appSecret: harness.deps.config.appSecret });

const to = (path: string) => received.filter((request) => request.path === path);
const deliveriesOf = (endpointId: string) => harness.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('webhook deliveries through the worker', () => {
  it('a chat turn against the fake model ends with a signed run.completed POST carrying the answer', async () => {
    const endpoint = await subscribe('/completed', ['run.completed']);
    const other = await subscribe('/failures-only', ['run.failed']);
    script([{ text: 'The answer is 42.' }]);
    const run = await harness.createRun('What is the answer?');
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await expect.poll(() => to('/completed').length, { timeout: 10_000 }).toBe(1);
    const [request] = to('/completed');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(verifyWebhookSignature(endpoint.secret, request!.headers as Record<string, string>, request!.body)).toBe(true);
    expect(verifyWebhookSignature(other.secret, request!.headers as Record<string, string>, request!.body)).toBe(false);
    const event = JSON.parse(request!.body);
    expect(event).toMatchObject({ type: 'run.completed', id: request!.headers['webhook-id'], data: { run: { id: run.id, status: 'succeeded', kind: 'chat', sessionId: run.sessionId, answer: 'The answer is 42.' } } });
    expect(Date.parse(event.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    await expect.poll(async () => (await deliveriesOf(endpoint.id))[0]?.status, { timeout: 5_000 }).toBe('succeeded');
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ eventType: 'run.completed', eventId: event.id, attempts: 1, responseStatus: 200, responseExcerpt: 'thanks', error: null });
    expect(delivery!.durationMs).toBeGreaterThanOrEqual(0);
    // Subscribed to failures only: nothing sent.
    expect(to('/failures-only')).toHaveLength(0);
    expect(await deliveriesOf(other.id)).toHaveLength(0);
  });

  it('a receiver answering 500 gets the same event again after a backoff, and the log shows two attempts and a short excerpt', async () => {
    const endpoint = await subscribe('/flaky', ['run.completed']);
    answers.set('/flaky', [500]);
    script([{ text: 'Retry me.' }]);
    const run = await harness.createRun('Once more');
    await harness.enqueueRun(run.id);
    await harness.waitForEnd(run.id);
    await expect.poll(async () => (await deliveriesOf(endpoint.id))[0]?.status, { timeout: 10_000 }).toBe('retrying');
    const [first] = await deliveriesOf(endpoint.id);
    expect(first).toMatchObject({ attempts: 1, responseStatus: 500, error: 'HTTP 500' });
    expect(first!.responseExcerpt!.length).toBe(500);
    await expect.poll(async () => (await deliveriesOf(endpoint.id))[0]?.status, { timeout: 15_000 }).toBe('succeeded');
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ attempts: 2, responseStatus: 200 });
    const [a, b] = to('/flaky');
    expect(a!.headers['webhook-id']).toBe(b!.headers['webhook-id']);
    expect(a!.body).toBe(b!.body);
    expect(verifyWebhookSignature(endpoint.secret, b!.headers as Record<string, string>, b!.body)).toBe(true);
  });

  it('a run parked for approval sends approval.requested with the approval and the tool', async () => {
    const endpoint = await subscribe('/approvals', ['approval.requested', 'run.completed']);
    const tool = await harness.createTool({ type: 'calculator', config: {}, needsApproval: true });
    script([{ toolCalls: [{ name: tool.slug, input: { expression: '6*7' } }] }, { text: '42' }]);
    const withTool = await harness.createRun('Compute it', [tool]);
    await harness.enqueueRun(withTool.id);
    await expect.poll(() => to('/approvals').length, { timeout: 15_000 }).toBe(1);
    const [approval] = await approvalsForRun(harness.db, withTool.id);
    const [request] = to('/approvals');
    expect(verifyWebhookSignature(endpoint.secret, request!.headers as Record<string, string>, request!.body)).toBe(true);
    expect(JSON.parse(request!.body)).toMatchObject({
      type: 'approval.requested',
      data: { run: { id: withTool.id, status: 'awaiting_approval', sessionId: withTool.sessionId }, approval: { id: approval!.id, toolName: tool.slug, input: { expression: '6*7' } } },
    });
    // Parked: no run.completed yet.
    expect(to('/approvals')).toHaveLength(1);
  });

  it(`an endpoint failing ${WEBHOOK_DISABLE_AFTER_FAILURES} deliveries in a row is switched off with its reason, and stops getting events`, async () => {
    const endpoint = await subscribe('/down', ['run.completed']);
    answers.set('/down', Array(WEBHOOK_DISABLE_AFTER_FAILURES + 5).fill(503));
    for (let index = 0; index < WEBHOOK_DISABLE_AFTER_FAILURES; index++) {
      const event = runEndedEvent({ id: `run_down_${index}_${Date.now()}`, kind: 'chat', sessionId: null, status: 'succeeded' }, { answer: 'x' });
      await enqueue(harness.deps.queues, 'webhookDeliveries', 'webhook-delivery', { deliveryId: `whd_down_${index}_${Date.now()}`, endpointId: endpoint.id, event }, { attempts: 1 });
    }
    await expect.poll(async () => (await harness.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)))[0]?.enabled, { timeout: 15_000 }).toBe(false);
    const [row] = await harness.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ consecutiveFailures: WEBHOOK_DISABLE_AFTER_FAILURES, disabledReason: expect.stringMatching(/after 10 failed deliveries in a row \(last: HTTP 503\)/) });
    expect(await webhookSubscribers(harness.db, harness.userId, 'run.completed')).toEqual([]);
    // A test event still goes out to a disabled endpoint (the user checks their fix before switching it on).
    const ping = pingEvent(endpoint.id);
    answers.set('/down', []);
    await enqueue(harness.deps.queues, 'webhookDeliveries', 'webhook-delivery', { deliveryId: `whd_ping_${Date.now()}`, endpointId: endpoint.id, event: ping, manual: true });
    await expect.poll(() => to('/down').some((request) => JSON.parse(request.body).id === ping.id), { timeout: 10_000 }).toBe(true);
    // Switching it on again clears the streak and the reason.
    const on = await updateWebhookEndpoint(harness.db, harness.userId, endpoint.id, { enabled: true }, { allowPrivateNetworks: true });
    expect(on).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
  });

  it('delivery re-checks the destination where it connects: with the escape hatch off, loopback is refused without retry, and a name rebound to loopback too', async () => {
    const endpoint = await subscribe('/refused', ['run.completed']);
    // The processor as a worker without the escape hatch runs it (the URL was saved while it was on).
    const event = pingEvent(endpoint.id);
    const job = { data: { deliveryId: `whd_strict_${Date.now()}`, endpointId: endpoint.id, event }, attemptsMade: 0, opts: { attempts: 5 } } as unknown as Job<JobPayload<'webhookDeliveries', 'webhook-delivery'>>;
    // Not retried: the same destination would be refused again.
    expect(await processWebhookDelivery(job, { ...harness.deps, allowPrivateNetworks: false })).toMatchObject({ status: 'failed', retry: false });
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseStatus: null, error: expect.stringMatching(/^Refused: .*only allowed with FETCH_ALLOW_PRIVATE_NETWORKS/) });
    // An https URL on loopback: refused by the address check.
    const [https] = await harness.db.update(webhookEndpoints).set({ url: `https://127.0.0.1:${new URL(origin).port}/refused` }).where(eq(webhookEndpoints.id, endpoint.id)).returning();
    expect(await processWebhookDelivery({ ...job, data: { ...job.data, deliveryId: `${job.data.deliveryId}_https` } } as typeof job, { ...harness.deps, allowPrivateNetworks: false })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^Refused: .*loopback/),
    });
    expect(https!.url).toContain('https://127.0.0.1');
    expect(to('/refused')).toHaveLength(0);
    // DNS answering loopback at delivery time (the URL was public when saved): refused as it connects, no socket to the receiver.
    const port = new URL(origin).port;
    const rebound = await sendWebhook(`https://hooks.example.test:${port}/rebound`, 'whsec_dGVzdA==', event, { allowPrivateNetworks: false, resolve: async () => ['127.0.0.1'] });
    expect(rebound).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/^Refused: .*127\.0\.0\.1.*loopback/) });
    expect(received.some((request) => request.path === '/rebound')).toBe(false);
  });

  it('a secret that no longer decrypts (APP_SECRET changed) fails the delivery with a hint, without retries or a crash', async () => {
    const endpoint = await subscribe('/rekeyed', ['run.completed']);
    const job = { data: { deliveryId: `whd_rekeyed_${Date.now()}`, endpointId: endpoint.id, event: pingEvent(endpoint.id), manual: true }, attemptsMade: 0, opts: { attempts: 5 } } as unknown as Job<JobPayload<'webhookDeliveries', 'webhook-delivery'>>;
    const deps = { ...harness.deps, config: { ...harness.deps.config, appSecret: 'another-app-secret-0123456789' } };
    expect(await processWebhookDelivery(job, deps)).toMatchObject({ status: 'failed', retry: false, error: expect.stringMatching(/APP_SECRET changed\?\); rotate the secret/) });
    expect(to('/rekeyed')).toHaveLength(0);
  });

  it('a user without webhooks costs a run no query and no Redis call once the snapshot is cached; any endpoint change drops it everywhere', async () => {
    const database = await openTestDb();
    const subscriber = createWorkerRedis(testRedisUrl());
    const { cache, close } = await startConfigCache(database.db, { publisher: harness.deps.redis, subscriber, prefix: harness.deps.config.prefix });
    try {
      const deps = { db: database.db, queues: harness.deps.queues };
      const build = () => {
        throw new Error('built an event nobody subscribed to');
      };
      await emitWebhookEvent(deps, harness.userId, 'run.completed', build);
      const loads = cache.stats.loads;
      const waiting = await harness.deps.queues.webhookDeliveries.count();
      for (let index = 0; index < 50; index++) expect(await emitWebhookEvent(deps, harness.userId, 'run.completed', build)).toBe(0);
      expect(cache.stats.loads).toBe(loads);
      expect(await harness.deps.queues.webhookDeliveries.count()).toBe(waiting);
      // Another process (the harness's db, as the API would) adds an endpoint: the invalidation reaches this cache.
      const endpoint = await createWebhookEndpoint(harness.db, harness.userId, { url: `${origin}/later`, events: ['run.completed'], enabled: true }, { allowPrivateNetworks: true, appSecret: harness.deps.config.appSecret });
      await harness.deps.redis.publish(`${harness.deps.config.prefix}:config-invalidate`, 'webhooks');
      await expect.poll(() => webhookSubscribers(database.db, harness.userId, 'run.completed'), { timeout: 5_000 }).toEqual([endpoint.id]);
    } finally {
      await close();
      subscriber.disconnect();
      await database.close();
    }
  });
});

