import { describe, expect, it } from 'vitest';
import { cleanModelTitle, DEFAULT_SESSION_TITLE, MAX_MODEL_TITLE_LENGTH, suggestSessionTitle } from './session-title';

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

describe('cleanModelTitle', () => {
  it("keeps a model's title as it wrote it, without wrapping quotes, a label, markdown or ending punctuation", () => {
    expect(cleanModelTitle('Planning A Lisbon Offsite')).toBe('Planning A Lisbon Offsite');
    expect(cleanModelTitle('"Planning A Lisbon Offsite."')).toBe('Planning A Lisbon Offsite');
    expect(cleanModelTitle('“Tides Explained”!')).toBe('Tides Explained');
    expect(cleanModelTitle('Title: **Rust vs Go for CLIs**')).toBe('Rust vs Go for CLIs');
    expect(cleanModelTitle('## Weekend Hiking Plan\n\nThis title fits because…')).toBe('Weekend Hiking Plan');
    expect(cleanModelTitle('<think>The user asks about tides.</think>\nHow Tides Work')).toBe('How Tides Work');
    expect(cleanModelTitle('「项目进度会议纪要」。')).toBe('项目进度会议纪要');
    expect(cleanModelTitle('标题：周末徒步计划')).toBe('周末徒步计划');
    // A question mark inside stays; only the end is cleaned.
    expect(cleanModelTitle('Why Is The Sky Blue?')).toBe('Why Is The Sky Blue');
  });

  it('is empty when nothing is left, and cuts a long answer at a word within the limit', () => {
    expect(cleanModelTitle('')).toBe('');
    expect(cleanModelTitle(' "." \n')).toBe('');
    expect(cleanModelTitle('<think>only thinking, never an answer')).toBe('');
    const long = cleanModelTitle(`${'word '.repeat(40)}end`);
    expect([...long].length).toBeLessThanOrEqual(MAX_MODEL_TITLE_LENGTH);
    expect(long).toMatch(/^word( word)*…$/);
  });
});
