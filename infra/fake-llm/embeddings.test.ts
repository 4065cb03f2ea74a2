import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_EMBEDDING_DIMENSIONS } from './embeddings';
import { startFakeLlm, type FakeLlm } from './server';

let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.embeddings.length = 0;
  llm.setEmbeddingError(null);
});

const embed = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${llm.url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('POST /v1/embeddings', () => {
  it('answers one unit vector per input, in order, the same for the same text', async () => {
    const response = await embed({ model: 'text-embedding-3-small', input: ['Annual leave is 25 days', 'Annual leave is 25 days', '会议纪要'] }, { authorization: 'Bearer sk-test' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; data: { index: number; embedding: number[] }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((item) => item.index)).toEqual([0, 1, 2]);
    for (const item of body.data) {
      expect(item.embedding).toHaveLength(FAKE_EMBEDDING_DIMENSIONS);
      expect(dot(item.embedding, item.embedding)).toBeCloseTo(1, 6);
    }
    expect(body.data[0]!.embedding).toEqual(body.data[1]!.embedding);
    expect(llm.embeddings).toEqual([{ model: 'text-embedding-3-small', input: ['Annual leave is 25 days', 'Annual leave is 25 days', '会议纪要'], authorization: 'Bearer sk-test' }]);
  });

  it('scores texts that share word stems above texts that do not', async () => {
    const response = await embed({ model: 'm', input: ['How many days of annual leave do staff get?', 'Staff get 25 days of annual leave each year.', 'The VPN needs two-factor authentication.'] });
    const [question, leave, vpn] = ((await response.json()) as { data: { embedding: number[] }[] }).data.map((item) => item.embedding);
    expect(dot(question!, leave!)).toBeGreaterThan(0.4);
    expect(dot(question!, leave!)).toBeGreaterThan(dot(question!, vpn!) + 0.3);
  });

  it('takes a single string as input', async () => {
    const body = (await (await embed({ model: 'm', input: 'one text' })).json()) as { data: unknown[] };
    expect(body.data).toHaveLength(1);
  });

  it('answers 400 for a body without model or input, and the configured error when told to fail', async () => {
    const bad = await embed({ input: [] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('`input`');
    llm.setEmbeddingError({ status: 503, message: 'overloaded' });
    const failed = await embed({ model: 'm', input: ['x'] });
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { message: string } }).error.message).toBe('overloaded');
  });
});
