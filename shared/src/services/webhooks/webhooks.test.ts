import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors';
import { checkWebhookUrl } from './check-url';
import { approvalRequestedEvent, deliveryIdOf, runEndedEvent, WEBHOOK_ANSWER_MAX_CHARS } from './events';
import { generateWebhookSecret, signWebhook, verifyWebhookSignature } from './signature';

// DNS is stubbed: nothing here opens a socket.
const resolvesTo = (...addresses: string[]) => async () => addresses;

describe('checkWebhookUrl', () => {
  it('refuses a name that resolves to a private, loopback, link-local or metadata address, even when one record is public', async () => {
    for (const addresses of [['10.1.2.3'], ['192.168.0.10'], ['127.0.0.1'], ['169.254.169.254'], ['fd00::1'], ['93.184.215.14', '10.0.0.1'], ['::ffff:10.0.0.1']]) {
      const refusal = await checkWebhookUrl('https://hooks.example.test/agentq', { allowPrivateNetworks: false, resolve: resolvesTo(...addresses) }).catch((error: unknown) => error);
      expect(refusal, addresses.join(',')).toBeInstanceOf(InvalidInputError);
      expect((refusal as InvalidInputError).issues).toEqual([{ path: ['url'], message: expect.stringMatching(/not allowed/) }]);
    }
  });

  it('accepts a public https destination; http only with the escape hatch, which still refuses reserved ranges', async () => {
    await expect(checkWebhookUrl('https://hooks.example.test/agentq', { allowPrivateNetworks: false, resolve: resolvesTo('93.184.215.14') })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('http://hooks.example.test/agentq', { allowPrivateNetworks: false, resolve: resolvesTo('93.184.215.14') })).rejects.toThrow(/https/);
    await expect(checkWebhookUrl('http://hooks.example.test/agentq', { allowPrivateNetworks: true, resolve: resolvesTo('10.0.0.8') })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://hooks.example.test/', { allowPrivateNetworks: true, resolve: resolvesTo('0.0.0.0') })).rejects.toThrow(/not allowed/);
  });

  it('a name that does not resolve is a 400-style input error, not an exception', async () => {
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkWebhookUrl('https://nowhere.example.test/', { allowPrivateNetworks: false, resolve: failing })).rejects.toThrow(/Could not resolve.*ENOTFOUND/);
  });
});

describe('signatures', () => {
  it('signs id.timestamp.body with the secret\'s decoded bytes and verifies within the tolerance only', () => {
    const secret = generateWebhookSecret();
    const message = { id: 'evt_1', timestamp: 1_767_225_600, body: '{"type":"ping"}' };
    const signature = signWebhook(secret, message);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const headers = { 'webhook-id': message.id, 'webhook-timestamp': String(message.timestamp), 'webhook-signature': `v1,bm90IGl0 ${signature}` };
    expect(verifyWebhookSignature(secret, headers, message.body, { now: message.timestamp + 10 })).toBe(true);
    expect(verifyWebhookSignature(secret, headers, `${message.body} `, { now: message.timestamp })).toBe(false);
    expect(verifyWebhookSignature(secret, headers, message.body, { now: message.timestamp + 301 })).toBe(false);
    expect(verifyWebhookSignature(generateWebhookSecret(), headers, message.body, { now: message.timestamp })).toBe(false);
    // The Standard Webhooks spec's own example: same secret, id, timestamp and body give its signature.
    expect(
      signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' }),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('events', () => {
  it('a run\'s end and an approval request have stable ids, so a repeated end queues the same deliveries', () => {
    const run = { id: 'run_1', kind: 'chat', sessionId: 'cs_1', status: 'succeeded' as const, finishReason: 'stop' };
    const first = runEndedEvent(run, { answer: 'Hello', steps: 1 });
    expect(first).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'run.completed', data: { run: { id: 'run_1', status: 'succeeded', sessionId: 'cs_1', kind: 'chat', answer: 'Hello', answerTruncated: false } } });
    expect(runEndedEvent(run, { answer: 'Hello' }).id).toBe(first.id);
    expect(deliveryIdOf(first.id, 'whk_1')).toBe(deliveryIdOf(first.id, 'whk_1'));
    expect(deliveryIdOf(first.id, 'whk_1')).not.toBe(deliveryIdOf(first.id, 'whk_2'));
    const failed = runEndedEvent({ ...run, status: 'failed' }, { error: 'The model is unreachable' });
    expect(failed).toMatchObject({ type: 'run.failed', data: { run: { error: 'The model is unreachable' } } });
    expect(failed.data.run).not.toHaveProperty('answer');
    expect(failed.id).not.toBe(first.id);
    const long = runEndedEvent(run, { answer: 'x'.repeat(WEBHOOK_ANSWER_MAX_CHARS + 1) });
    expect(long.data.run).toMatchObject({ answerTruncated: true });
    const approval = approvalRequestedEvent(run, { id: 'apr_1', toolName: 'delete_file', toolCallId: 'call_1', input: { path: '/x' }, expiresAt: new Date(0) });
    expect(approval).toMatchObject({ type: 'approval.requested', data: { run: { status: 'awaiting_approval' }, approval: { id: 'apr_1', toolName: 'delete_file', decideUrl: '/api/approvals/apr_1' } } });
  });
});
