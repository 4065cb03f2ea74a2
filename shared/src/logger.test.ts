import { type ChildProcess, spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
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
    logger.warn({ request: { headers: { authorization: `Bearer ${API_KEY}`, cookie: 'aq_session=abc', 'x-api-key': API_KEY, 'X-Subscription-Token': API_KEY, accept: 'text/html' } } }, 'upstream call');
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

describe('stdout', () => {
  /** Runs a script against createLogger's default destination in a process of its own; resolves with its stdout. */
  function runLogging(script: string, onLine?: (line: string, child: ChildProcess) => void): Promise<string> {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { createLogger } from ${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))};\nconst logger = createLogger({ name: 'stdout-test' });\n${script}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      onLine?.(output, child);
    });
    return new Promise((resolve) => child.on('close', () => resolve(output)));
  }

  it('writes info lines in batches while the process idles, and what is left at exit', async () => {
    let firstSeenAfter: number | undefined;
    const started = performance.now();
    // 50 lines in one turn arrive together; the process then idles until it is told to exit.
    const output = await runLogging(`for (let i = 0; i < 50; i++) logger.info({ i }, 'batched'); setTimeout(() => { logger.info('last'); process.exit(0); }, 2000);`, (text) => {
      if (firstSeenAfter === undefined && text.includes('"batched"')) firstSeenAfter = performance.now() - started;
    });
    expect(output.split('\n').filter((line) => line.includes('"batched"'))).toHaveLength(50);
    expect(output).toContain('"msg":"last"');
    // Flushed by the timer while the process idled, long before its exit.
    expect(firstSeenAfter).toBeLessThan(1500);
  });

  it('writes nothing while the process idles after a flush', async () => {
    // Counts sonic-boom's writes to stdout (it calls fs.write through the module object).
    const output = await runLogging(
      `const fs = (await import('node:fs')).default; let writes = 0; const write = fs.write; fs.write = (...args) => (writes++, write(...args));
       logger.info('one'); setTimeout(() => { logger.info({ writes }, 'idle'); process.exit(0); }, 1500);`,
    );
    expect(output).toContain('"msg":"one"');
    const idle = JSON.parse(output.split('\n').find((line) => line.includes('"msg":"idle"'))!) as { writes: number };
    // The first line's flush; 1.5 s of flushing an empty buffer every 200 ms made it 7.
    expect(idle.writes).toBe(1);
  });

  it('writes a warning or an error at once: a process killed right after keeps it', async () => {
    const output = await runLogging(`logger.info('before'); logger.error({ err: new Error('boom') }, 'failed'); process.kill(process.pid, 'SIGKILL');`);
    expect(output).toContain('"msg":"before"');
    expect(output).toContain('"msg":"failed"');
  });
});
