import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

/** A logger whose JSON lines land in an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', name: 'redaction-test', destination }), lines, raw };
}

const API_KEY = 'sk-live-0123456789abcdef';

describe('log redaction', () => {
  it('never writes an API key, password, token, cookie or authorization header', () => {
    const { logger, lines, raw } = capture();
    logger.info({ model: { name: 'Prod', baseUrl: 'https://llm.example/v1', apiKey: API_KEY } }, 'model seeded');
    logger.info({ apiKey: API_KEY, password: 'hunter2-hunter2', token: 'aq_tok_secret' }, 'top level');
    logger.warn({ request: { headers: { authorization: `Bearer ${API_KEY}`, cookie: 'aq_session=abc', 'x-api-key': API_KEY, accept: 'text/html' } } }, 'upstream call');
    logger.error({ err: Object.assign(new Error('boom'), { config: { headers: { Authorization: `Bearer ${API_KEY}` } } }) }, 'failed');
    logger.info({ tool: { slug: 'crm', config: { defaultHeaders: { 'X-Token': API_KEY }, timeout: 1000 } } }, 'tool created');
    logger.info({ env: { LLM_API_KEY: API_KEY, METRICS_TOKEN: 'metrics-token-0123456789', APP_SECRET: 'app-secret-0123456789' } }, 'env');

    expect(lines).toHaveLength(6);
    for (const line of raw) {
      expect(line).not.toContain(API_KEY);
      expect(line).not.toContain('hunter2');
      expect(line).not.toContain('aq_session=abc');
      expect(line).not.toContain('metrics-token-0123456789');
      expect(line).not.toContain('app-secret-0123456789');
    }
    expect((lines[0]!.model as Record<string, unknown>).apiKey).toBe('[redacted]');
    // What is not secret stays readable.
    expect((lines[0]!.model as Record<string, unknown>).baseUrl).toBe('https://llm.example/v1');
    expect(((lines[2]!.request as { headers: Record<string, unknown> }).headers).accept).toBe('text/html');
    expect(((lines[2]!.request as { headers: Record<string, unknown> }).headers).authorization).toBe('[redacted]');
    expect(((lines[4]!.tool as { config: Record<string, unknown> }).config).timeout).toBe(1000);
    expect(lines[3]!.msg).toBe('failed');
  });

  it('redacts errors logged under any key, nested secrets and child bindings, and leaves the rest as it was', () => {
    const { logger, lines, raw } = capture();
    const failure = Object.assign(new Error('upstream refused'), { response: { headers: { 'Set-Cookie': 'sid=abc', 'content-type': 'text/plain' } } });
    logger.warn({ cause: failure, attempts: [{ token: 'aq_tok_secret' }, { ok: true }] }, 'retrying');
    logger.child({ model: { apiKey: API_KEY, name: 'Prod' } }).info('bound');
    const plain = { route: '/api/runs/:id', status: 200 };
    logger.info(plain, 'request');
    for (const line of raw) {
      expect(line).not.toContain('sid=abc');
      expect(line).not.toContain('aq_tok_secret');
      expect(line).not.toContain(API_KEY);
    }
    const cause = lines[0]!.cause as { message: string; stack: string; response: { headers: Record<string, string> } };
    expect(cause.message).toBe('upstream refused');
    expect(cause.stack).toContain('upstream refused');
    expect(cause.response.headers).toEqual({ 'Set-Cookie': '[redacted]', 'content-type': 'text/plain' });
    expect(lines[0]!.attempts).toEqual([{ token: '[redacted]' }, { ok: true }]);
    expect(lines[1]!.model).toEqual({ apiKey: '[redacted]', name: 'Prod' });
    expect(lines[2]).toMatchObject(plain);
    // The caller's object is never changed.
    expect(failure.response.headers['Set-Cookie']).toBe('sid=abc');
  });

  it('child loggers keep redacting', () => {
    const { logger, raw } = capture();
    logger.child({ runId: 'run_1', jobId: 'job_1' }).info({ apiKey: API_KEY }, 'inside a job');
    expect(raw[0]).toContain('"runId":"run_1"');
    expect(raw[0]).not.toContain(API_KEY);
  });
});
