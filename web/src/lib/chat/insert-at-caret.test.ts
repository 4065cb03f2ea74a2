import { describe, expect, it } from 'vitest';
import { insertAtCaret } from './insert-at-caret.ts';

describe('insertAtCaret', () => {
  it('puts the text at the caret of an empty box, the caret after it', () => {
    expect(insertAtCaret('', { start: 0, end: 0 }, 'Hello there.')).toEqual({ draft: 'Hello there.', caret: 12 });
  });

  it('spaces it from the words around it, but not from punctuation or whitespace', () => {
    expect(insertAtCaret('Say', { start: 3, end: 3 }, 'hello')).toEqual({ draft: 'Say hello', caret: 9 });
    expect(insertAtCaret('Say  now', { start: 4, end: 4 }, 'hello')).toEqual({ draft: 'Say hello now', caret: 9 });
    expect(insertAtCaret('Saynow', { start: 3, end: 3 }, 'hello')).toEqual({ draft: 'Say hello now', caret: 10 });
    expect(insertAtCaret('Say, please', { start: 3, end: 3 }, 'hello')).toEqual({ draft: 'Say hello, please', caret: 9 });
    expect(insertAtCaret('(', { start: 1, end: 1 }, 'aside')).toEqual({ draft: '(aside', caret: 6 });
  });

  it('replaces a selection', () => {
    expect(insertAtCaret('Say bad words', { start: 4, end: 7 }, 'kind')).toEqual({ draft: 'Say kind words', caret: 8 });
  });

  it('adds no space next to Chinese text', () => {
    expect(insertAtCaret('你好', { start: 2, end: 2 }, '世界')).toEqual({ draft: '你好世界', caret: 4 });
    expect(insertAtCaret('请翻译', { start: 3, end: 3 }, 'hello')).toEqual({ draft: '请翻译hello', caret: 8 });
  });

  it('clamps a caret outside the text', () => {
    expect(insertAtCaret('ab', { start: 9, end: 9 }, 'c')).toEqual({ draft: 'ab c', caret: 4 });
  });
});
