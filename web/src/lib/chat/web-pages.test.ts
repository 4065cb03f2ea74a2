import { describe, expect, it } from 'vitest';
import { pageFile, pageTokens, urlsIn } from './web-pages.ts';

describe('web pages in the composer', () => {
  it('finds the addresses in a message once each, without the punctuation around them', () => {
    expect(urlsIn('Compare https://example.com/a?x=1, and (http://example.org/b). Also https://example.com/a?x=1!')).toEqual(['https://example.com/a?x=1', 'http://example.org/b']);
    expect(urlsIn('no links here, ftp://example.com/x either')).toEqual([]);
  });

  it('takes #URL tokens out of the message as pages to attach, leaving plain links and mid-word #s', () => {
    expect(pageTokens('#https://example.com/guide summarise this')).toEqual({ urls: ['https://example.com/guide'], rest: 'summarise this' });
    expect(pageTokens('Read #https://a.test/x, then #https://b.test/y. Keep https://c.test/z and issue#https://d.test')).toEqual({
      urls: ['https://a.test/x', 'https://b.test/y'],
      rest: 'Read , then . Keep https://c.test/z and issue#https://d.test',
    });
    expect(pageTokens('nothing to attach')).toEqual({ urls: [], rest: 'nothing to attach' });
  });

  it('attaches a page as a Markdown file named by its title', async () => {
    const file = pageFile({ title: 'Guide', url: 'https://a.test/', finalUrl: 'https://a.test/', fileName: 'Guide.md', content: '# Guide\n\ntext' });
    expect(file).toMatchObject({ name: 'Guide.md', type: 'text/markdown' });
    expect(await file.text()).toBe('# Guide\n\ntext');
  });
});
