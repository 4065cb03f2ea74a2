import { describe, expect, it } from 'vitest';
import { changesBetween, countLabel, draftOf, plainSnippet, plainSummary, snippetParts, splitTags } from './format.ts';

describe('splitTags', () => {
  it('reads the stored comma-separated form', () => {
    expect(splitTags('profile, work ,, colour')).toEqual(['profile', 'work', 'colour']);
    expect(splitTags(null)).toEqual([]);
    expect(splitTags('')).toEqual([]);
  });
});

describe('snippetParts', () => {
  it('marks the runs between ** as matches, on one line', () => {
    expect(snippetParts('my favourite **colour** is\n**teal** …')).toEqual([
      { text: 'my favourite ', match: false },
      { text: 'colour', match: true },
      { text: ' is ', match: false },
      { text: 'teal', match: true },
      { text: ' …', match: false },
    ]);
  });

  it("finds the match inside the document's own bold, and drops the document's markers", () => {
    expect(snippetParts('Colour notes\n\nFavourite colour: ****teal****. **deep ****sea****')).toEqual([
      { text: 'Colour notes Favourite colour: ', match: false },
      { text: 'teal', match: true },
      { text: '. deep ', match: false },
      { text: 'sea', match: true },
    ]);
  });

  it('keeps markup as plain text (the page never renders it as HTML)', () => {
    expect(snippetParts('<img src=x onerror=alert(1)> **hit**')).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: 'hit', match: true },
    ]);
  });
});

describe('changesBetween', () => {
  const original = draftOf({ title: 'Notes', content: '# Notes\nfirst', summary: 'Notes first', tags: 'a, b' });

  it('sends nothing when nothing changed (whitespace in title and tags aside)', () => {
    expect(changesBetween(original, { ...original, title: ' Notes ', tags: 'a,b' })).toEqual({});
  });

  it('sends only what changed, so an untouched summary is re-derived from new content', () => {
    expect(changesBetween(original, { ...original, content: '# Notes\nsecond' })).toEqual({ content: '# Notes\nsecond' });
  });

  it('turns an emptied summary and emptied tags into null', () => {
    expect(changesBetween(original, { ...original, summary: '  ', tags: '' })).toEqual({ summary: null, tags: null });
  });

  it('normalizes the tags it sends', () => {
    expect(changesBetween(original, { ...original, tags: ' a , c ' })).toEqual({ tags: 'a, c' });
  });
});

describe('countLabel', () => {
  it('names the type in singular or plural', () => {
    expect(countLabel(1, 'memory')).toBe('1 memory');
    expect(countLabel(2, 'memory')).toBe('2 memories');
    expect(countLabel(0, 'document')).toBe('0 documents');
  });
});

describe('plainSummary', () => {
  it('strips fences, table pipes, headings, list markers, emphasis and links', () => {
    expect(plainSummary('# Colour notes\n\nFavourite colour: **teal**.\n\n- likes the sea\n- dislikes orange')).toBe(
      'Colour notes Favourite colour: teal. likes the sea dislikes orange',
    );
    expect(plainSummary('```ts\nconst a = 1;\n```\n| name | value |\n|---|---|\n| a | 1 |')).toBe('const a = 1; name value a 1');
    expect(plainSummary('See [the docs](https://example.com) and `npm start`, _now_.')).toBe('See the docs and npm start, now.');
    expect(plainSummary('本周会议纪要：讨论了项目进度')).toBe('本周会议纪要：讨论了项目进度');
    expect(plainSummary(null)).toBe('');
  });
});

describe('plainSnippet', () => {
  it('drops block syntax and keeps the match markers', () => {
    expect(plainSnippet('# 周报 本周**会议纪要**：讨论 | 事项 | 状态 | |---|---|')).toBe('周报 本周**会议纪要**：讨论 事项 状态');
  });
});
