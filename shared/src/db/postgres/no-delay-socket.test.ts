import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { startDelayingForwarder } from '../../../../infra/load/delaying-forwarder';
import { testDatabaseUrl } from '../../testing';
import { noDelaySocketOpener, noDelaySocketOption } from './no-delay-socket';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const listening = async (server: Server, ...at: [number, string] | [string]) => {
  await new Promise<void>((resolve) => server.listen(...(at as [number, string]), resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
};

/**
 * How long after it was sent a statement pipelined 5 ms behind a 300 ms one on the same connection
 * reaches the wire, read at a loopback relay in front of the test database: the least of three
 * tries, so a scheduling stall of this busy process cannot pass for a held-back write.
 */
async function secondStatementDelayMs(options: postgres.Options<{}>): Promise<number> {
  const database = new URL(testDatabaseUrl());
  const arrivals: Array<{ at: number; text: string }> = [];
  const relay = await startDelayingForwarder(
    { host: '127.0.0.1', port: 0 },
    { host: database.hostname, port: Number(database.port || 5432) },
    0,
    (chunk) => arrivals.push({ at: performance.now(), text: chunk.toString('latin1') }),
  );
  closers.push(() => new Promise((resolve) => relay.close(resolve)));
  database.host = `127.0.0.1:${(relay.address() as { port: number }).port}`;
  const sql = postgres(database.href, { max: 1, onnotice: () => {}, ...options });
  closers.push(() => sql.end({ timeout: 1 }));
  const delays: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    // Back into the request/answer rhythm that makes the kernel delay its ACKs (the last try's
    // 300 ms wait let its delayed-ACK timer fire, which ends that mode).
    for (let round = 0; round < 3; round++) await sql.unsafe('select 1');
    const slow = sql.unsafe('select pg_sleep(0.3)').execute();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sentAt = performance.now();
    const marker = sql.unsafe(`select 'second-statement-${attempt}' as marker`).execute();
    await Promise.all([slow, marker]);
    const arrival = arrivals.find((entry) => entry.text.includes(`second-statement-${attempt}`));
    expect(arrival).toBeDefined();
    delays.push(arrival!.at - sentAt);
  }
  return Math.min(...delays);
}

describe('PostgreSQL connections open with TCP_NODELAY', () => {
  it('a statement pipelined behind a slow one leaves at once', async () => {
    expect(await secondStatementDelayMs(noDelaySocketOption())).toBeLessThan(20);
  });

  it("the driver's own socket holds it back until the first statement's bytes are acknowledged (why the opener exists)", async () => {
    // Held until the kernel's delayed ACK of the first statement: 40 ms on most boxes, but a clean-clone
    // CI run read 28.5 (the timer started with the first statement, 5 ms before this one was sent).
    // Noise only adds to it; the line is the opener's own (20 ms above).
    expect(await secondStatementDelayMs({})).toBeGreaterThanOrEqual(20);
  });

  it('tries the hosts of a multi-host URL in turn, and opens a Unix socket path as given', async () => {
    const seen: string[] = [];
    const named = (name: string) => createServer((socket) => (seen.push(name), socket.destroy()));
    const first = await listening(named('first'), 0, '127.0.0.1');
    const second = await listening(named('second'), 0, '127.0.0.1');
    const ports = [first, second].map((server) => (server.address() as { port: number }).port);
    const open = noDelaySocketOpener();
    const opened = [0, 1, 2].map(() => open({ host: ['127.0.0.1', '127.0.0.1'], port: ports, path: undefined }));
    await Promise.all(opened.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    expect(seen.sort()).toEqual(['first', 'first', 'second']);
    expect(opened.map((socket) => (socket as unknown as { host: string }).host)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);

    const directory = mkdtempSync(join(tmpdir(), 'agentq-pg-path-'));
    closers.push(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, '.s.PGSQL.5432');
    await listening(named('unix'), path);
    const viaPath = open({ host: ['127.0.0.1'], port: [ports[0]!], path });
    await new Promise((resolve) => viaPath.once('close', resolve));
    expect(seen).toContain('unix');
  });
});
