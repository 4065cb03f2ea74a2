import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBlockedDestinationError, type ResolveHostname } from './assert-safe-url';
import { createSafeAgent } from './safe-connect';
import { guardNonLoopbackConnections, type LoopbackServer, startLoopbackServer } from './test-server';

// These tests skip the pre-flight assertSafeUrl on purpose: they prove the connector refuses
// on its own, at connect time, which is what closes the DNS-rebinding window.
let server: LoopbackServer;
let guard: ReturnType<typeof guardNonLoopbackConnections>;

beforeAll(async () => {
  guard = guardNonLoopbackConnections();
  server = await startLoopbackServer((_request, response) => response.end('reached'));
});
afterAll(async () => {
  await server.close();
  guard.uninstall();
  expect(guard.attempts).toEqual([]);
});

const agents: Array<ReturnType<typeof createSafeAgent>> = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
});

function agentWith(options: Parameters<typeof createSafeAgent>[0]) {
  const agent = createSafeAgent(options);
  agents.push(agent);
  return agent;
}

async function refusal(url: string, dispatcher: ReturnType<typeof createSafeAgent>) {
  const error = await request(url, { dispatcher }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return findBlockedDestinationError(error);
}

describe('createSafeAgent', () => {
  it('refuses a private IP literal before dialling', async () => {
    const before = server.connections();
    const blocked = await refusal(server.origin, agentWith({ allowPrivateNetworks: false }));
    expect(blocked?.reason).toMatch(/loopback/);
    expect(server.connections()).toBe(before);
  });

  it('refuses a hostname whose lookup returns a private address, before dialling', async () => {
    const resolve: ResolveHostname = async () => ['127.0.0.1'];
    const before = server.connections();
    const blocked = await refusal(`http://internal.test:${server.port}/`, agentWith({ resolve, allowPrivateNetworks: false }));
    expect(blocked?.reason).toBe('internal.test resolves to 127.0.0.1, which is in loopback 127.0.0.0/8');
    expect(server.connections()).toBe(before);
  });

  it('refuses when any one of the looked-up addresses is refused', async () => {
    const resolve: ResolveHostname = async () => ['127.0.0.1', '0.0.0.0'];
    const blocked = await refusal(`http://two.test:${server.port}/`, agentWith({ resolve, allowPrivateNetworks: true }));
    expect(blocked?.address).toBe('0.0.0.0');
  });

  it('re-resolves on every new connection, so a later refused answer is refused', async () => {
    let call = 0;
    // Loopback first (allowed here through allowPrivateNetworks), then an always-refused answer.
    const rebinding: ResolveHostname = async () => (++call === 1 ? ['127.0.0.1'] : ['0.0.0.0']);
    const agent = agentWith({ resolve: rebinding, allowPrivateNetworks: true });
    const first = await request(`http://rebind.test:${server.port}/`, { dispatcher: agent, reset: true });
    expect(await first.body.text()).toBe('reached');
    const before = server.connections();
    const blocked = await refusal(`http://rebind.test:${server.port}/`, agent);
    expect(blocked?.address).toBe('0.0.0.0');
    expect(server.connections()).toBe(before);
  });

  it('dials the address its own lookup returned', async () => {
    const resolve: ResolveHostname = async () => ['127.0.0.1'];
    const before = server.connections();
    const response = await request(`http://anything.test:${server.port}/`, {
      dispatcher: agentWith({ resolve, allowPrivateNetworks: true }),
    });
    expect(await response.body.text()).toBe('reached');
    expect(server.connections()).toBe(before + 1);
  });
});
