import { describe, expect, it } from 'vitest';
import { humanizeRunError } from './humanize-run-error.ts';

describe('humanizeRunError', () => {
  it('turns SDK wording into a sentence and keeps the raw text as details', () => {
    const unauthorized = humanizeRunError('AI_APICallError: Unauthorized (status 401)');
    expect(unauthorized.summary).toBe('The model provider did not accept the API key. An admin should check the key on the Models page.');
    expect(unauthorized.details).toBe('AI_APICallError: Unauthorized (status 401)');
    expect(humanizeRunError('Failed to process successful response').summary).toMatch(/could not be read/);
    expect(humanizeRunError('AI_APICallError: Cannot connect to API: fetch failed').summary).toMatch(/could not be reached/);
    expect(humanizeRunError('AI_APICallError: Too Many Requests').summary).toMatch(/limiting requests/);
    // Provider wording without SDK names is explained too, and kept as details.
    expect(humanizeRunError('Incorrect API key provided: sk-abc***')).toEqual({
      summary: 'The model provider did not accept the API key. An admin should check the key on the Models page.',
      details: 'Incorrect API key provided: sk-abc***',
    });
    expect(humanizeRunError('AI_RetryError: something odd').summary).toBe('The model could not answer this time. Try again, or choose another model.');
  });

  it('leaves messages already written for people alone', () => {
    expect(humanizeRunError('The run has no model (it was deleted); choose another model')).toEqual({
      summary: 'The run has no model (it was deleted); choose another model',
      details: undefined,
    });
    expect(humanizeRunError('The fake model refuses this request.').details).toBeUndefined();
  });
});

describe('humanizeRunError in Chinese', () => {
  it('writes the summary in the UI language and keeps the provider text as it was', async () => {
    const { setLocale } = await import('../i18n/i18n.svelte.ts');
    setLocale('zh');
    try {
      expect(humanizeRunError('AI_APICallError: Unauthorized (status 401)')).toEqual({
        summary: '模型服务商不接受该 API 密钥。请管理员在“模型”页面检查密钥。',
        details: 'AI_APICallError: Unauthorized (status 401)',
      });
    } finally {
      setLocale('en');
    }
  });
});
