import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRun } from './follower';

// A run whose worker died mid-answer: the resumed worker marks the retry and streams the answer again.
const EVENTS = [
  { type: 'start', messageId: 'run_1' },
  { type: 'text-start', id: 't0' },
  { type: 'text-delta', id: 't0', delta: 'ANSWER[/a] the answer' },
  { type: 'data-step-retry', data: { discardAfterSeq: 1, attempt: 2 }, transient: true },
  { type: 'text-start', id: 't0' },
  { type: 'text-delta', id: 't0', delta: 'ANSWER[/a] the answer, whole.' },
  { type: 'text-end', id: 't0' },
  { type: 'finish' },
];

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  let connections = 0;
  server = createServer((request, response) => {
    connections += 1;
    const after = Number(request.headers['last-event-id'] ?? 0);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    // The first connection drops after the abandoned attempt's text: the follower resumes with Last-Event-ID.
    const until = connections === 1 ? 3 : EVENTS.length;
    for (let seq = after + 1; seq <= until; seq++) response.write(`id: ${seq}\ndata: ${JSON.stringify(EVENTS[seq - 1])}\n\n`);
    if (until === EVENTS.length) response.write('data: [DONE]\n\n');
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('chaos follower', () => {
  it('drops a retried step’s abandoned attempt the way the chat UI does, across a reconnect', async () => {
    const report = await followRun(() => baseUrl, '', 'run_1', Date.now() + 10_000);
    expect(report).toMatchObject({ finished: true, gaps: 0, duplicates: 0, reconnects: 1, stepRetries: 1, events: EVENTS.length });
    expect(report.text).toBe('ANSWER[/a] the answer, whole.');
  });
});
