import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../i18n/i18n.svelte.ts';
import { answerDetails } from './answer-details.ts';
import type { RunOutcome } from './sessions-api.ts';

const run: RunOutcome = {
  id: 'run_1',
  status: 'succeeded',
  error: null,
  finishReason: 'stop',
  hitStepLimit: false,
  steps: 2,
  modelId: 'mdl_1',
  usage: { inputTokens: 6816, outputTokens: 28, totalTokens: 6844, reasoningTokens: 17 },
  cost: null,
  startedAt: '2026-12-06T23:16:29.321Z',
  finishedAt: '2026-12-06T23:16:30.532Z',
};

afterEach(() => setLocale('en'));

describe('answerDetails', () => {
  it('names the model, the tokens in and out (and reasoning), the time the run took, its output speed and its steps', () => {
    setLocale('en');
    // 28 tokens in 1.211 s.
    expect(answerDetails(run, 'Scripted model')).toEqual(['Scripted model', '6,816 in · 28 out tokens', '17 reasoning tokens', '1.2 s', '23.1 tokens/s', '2 steps']);
    setLocale('zh');
    expect(answerDetails({ ...run, steps: 1 }, undefined)).toEqual(['输入 6,816 · 输出 28 tokens', '推理 17 tokens', '1.2 s', '23.1 tokens/秒', '1 步']);
  });

  it("says what the answer cost when its model had prices, after its tokens", () => {
    setLocale('en');
    expect(answerDetails({ ...run, cost: 0.017318 }, 'Priced model')).toEqual(['Priced model', '6,816 in · 28 out tokens', '17 reasoning tokens', '$0.0173', '1.2 s', '23.1 tokens/s', '2 steps']);
    expect(answerDetails({ ...run, cost: 0 }, undefined)).toContain('$0.00');
  });

  it('leaves out what the run did not report', () => {
    setLocale('en');
    expect(answerDetails({ ...run, usage: { inputTokens: 5, outputTokens: 0, reasoningTokens: 0 }, startedAt: null, steps: 0 }, undefined)).toEqual(['5 in · 0 out tokens']);
    expect(answerDetails({ ...run, usage: null, finishedAt: null, steps: 0 }, undefined)).toEqual([]);
    expect(answerDetails(undefined, 'Scripted model')).toEqual([]);
  });
});
