import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelayingForwarder } from './delaying-forwarder';

/** The stand-in for `tc netem delay` behind docs/scaling.md's round-trip numbers, on loopback. */
let echo: Server;
let echoPort = 0;

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(() => echo.close());

describe('delaying forwarder', () => {
  it('adds the round-trip time to every request, keeps the bytes in order and counts request flights', async () => {
    const forwarder = await startDelayingForwarder({ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port: echoPort }, 25);
    try {
      const port = (forwarder.address() as { port: number }).port;
      const socket = connect({ host: '127.0.0.1', port });
      socket.setNoDelay(true);
      await new Promise((resolve) => socket.once('connect', resolve));
      const timings: number[] = [];
      for (const message of ['one', 'two', 'three']) {
        const started = performance.now();
        const reply = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
        socket.write(message);
        expect(await reply).toBe(message);
        timings.push(performance.now() - started);
      }
      // 25 ms each way: every round trip takes at least 50 ms (loopback alone is well under 1 ms).
      for (const ms of timings) expect(ms).toBeGreaterThanOrEqual(49);
      expect(forwarder.flights.requests).toBe(3);

      // A burst written at once comes back whole and in order.
      const burst = Array.from({ length: 50 }, (_, index) => `<${index}>`).join('');
      let received = '';
      const done = new Promise<void>((resolve) =>
        socket.on('data', (chunk) => {
          received += chunk;
          if (received.length >= burst.length) resolve();
        }),
      );
      for (let index = 0; index < 50; index++) socket.write(`<${index}>`);
      await done;
      expect(received).toBe(burst);
      socket.destroy();
    } finally {
      forwarder.close();
    }
  });
});
