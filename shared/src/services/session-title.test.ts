import { describe, expect, it } from 'vitest';
import { DEFAULT_SESSION_TITLE, suggestSessionTitle } from './session-title';

describe('suggestSessionTitle', () => {
  it('keeps what the question says: arithmetic, names with underscores, plain punctuation', () => {
    expect(suggestSessionTitle('What is 6 * 7? Use the calculator.')).toBe('What is 6 * 7?');
    expect(suggestSessionTitle('why is my_var undefined in utils_test.py')).toBe('Why is my_var undefined in utils_test.py');
    expect(suggestSessionTitle('Is 2*3 > 5')).toBe('Is 2*3 > 5');
  });

  it('drops markdown: emphasis, strikethrough, headings, quotes, code', () => {
    expect(suggestSessionTitle('**Urgent**: fix the _flaky_ login test')).toBe('Urgent: fix the flaky login test');
    expect(suggestSessionTitle('~~Old plan~~ new plan for Q3')).toBe('Old plan new plan for Q3');
    expect(suggestSessionTitle('## Release notes\nsummarise them')).toBe('Release notes summarise them');
    expect(suggestSessionTitle('> quoted question here\nplease answer')).toBe('Quoted question here please answer');
    expect(suggestSessionTitle('Explain `Array.prototype.flat`')).toBe('Explain Array.prototype.flat');
    expect(suggestSessionTitle('```js\nconsole.log(1)\n```\nWhy does this print 1?')).toBe('Why does this print 1?');
  });

  it('shortens links and long questions, and falls back when nothing is left', () => {
    expect(suggestSessionTitle('Summarise https://example.com/some/long/path?x=1 please')).toBe('Summarise example.com please');
    const long = suggestSessionTitle('Tell me everything about the history of the Roman aqueducts and their engineering');
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(49);
    expect(suggestSessionTitle('[[tool:web_fetch {"url":"x"}]]')).toBe(DEFAULT_SESSION_TITLE);
    expect([...suggestSessionTitle('请帮我总结一下这次会议的主要内容和后续需要跟进的行动项目')].length).toBeLessThanOrEqual(21);
  });
});
