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

  it('child loggers keep redacting', () => {
    const { logger, raw } = capture();
    logger.child({ runId: 'run_1', jobId: 'job_1' }).info({ apiKey: API_KEY }, 'inside a job');
    expect(raw[0]).toContain('"runId":"run_1"');
    expect(raw[0]).not.toContain(API_KEY);
  });
});
