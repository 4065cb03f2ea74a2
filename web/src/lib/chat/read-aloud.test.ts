import { describe, expect, it } from 'vitest';
import { speakableText, speechChunks, speechLanguage } from './read-aloud.svelte.ts';

describe('read aloud', () => {
  it("speaks an answer's words without code blocks, images or Markdown marks", () => {
    const markdown = [
      '## Steps',
      '',
      'Run **this** with `npm test`, see [the docs](https://docs.example/a).',
      '',
      '```bash',
      'rm -rf /tmp/x',
      '```',
      '',
      '- first item',
      '- second _item_',
      '',
      '| Name | Size |',
      '|---|---|',
      '| a | 1 |',
      '',
      '![diagram](https://img.example/x.png)',
      'Done.',
    ].join('\n');
    expect(speakableText(markdown)).toBe('Steps\nRun this with npm test, see the docs.\nfirst item\nsecond item\nName, Size.\na, 1\nDone.');
  });

  it('cuts a long answer into short utterances at sentence ends, losing no words', () => {
    const sentence = 'This sentence is about forty-five characters. ';
    const text = sentence.repeat(20).trim();
    const chunks = speechChunks(text);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(220);
      expect(chunk.endsWith('characters.')).toBe(true);
    }
    expect(chunks.join(' ')).toBe(text);
    // No sentence end in reach: cut at a space; no space either: at the limit.
    expect(speechChunks('word '.repeat(100)).every((chunk) => chunk.length <= 220 && !chunk.includes('wor d'))).toBe(true);
    expect(speechChunks('x'.repeat(500)).map((chunk) => chunk.length)).toEqual([220, 220, 60]);
    expect(speechChunks('  ')).toEqual([]);
  });

  it('names the language for Chinese, Japanese and Korean text, and leaves others to the page', () => {
    expect(speechLanguage('这是一个回答')).toBe('zh-CN');
    expect(speechLanguage('これは答えです')).toBe('ja-JP');
    expect(speechLanguage('이것은 답입니다')).toBe('ko-KR');
    expect(speechLanguage('Une réponse')).toBeUndefined();
  });
});
