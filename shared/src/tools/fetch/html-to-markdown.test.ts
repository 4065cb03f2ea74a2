import { afterAll, describe, expect, it } from 'vitest';
import { htmlToMarkdown, htmlToPlainText, MAX_HTML_NESTING_DEPTH, measureNestingDepth } from './html-to-markdown';
import { closeMarkdownThreads, convertHtmlToMarkdown, INLINE_CONVERSION_MAX_CHARS, warmMarkdownThreads } from './markdown-threads';

describe('htmlToMarkdown', () => {
  it('converts ordinary pages with turndown', () => {
    const result = htmlToMarkdown('<h2>Title</h2><p>A <em>b</em> <a href="https://x.test/">c</a></p><pre><code>x = 1</code></pre>');
    expect(result.method).toBe('turndown');
    expect(result.text).toContain('## Title');
    expect(result.text).toContain('[c](https://x.test/)');
    expect(result.text).toContain('```\nx = 1\n```');
  });

  it('drops scripts, styles, svg and iframes', () => {
    const result = htmlToMarkdown('<p>keep</p><script>bad()</script><style>.x{}</style><svg><text>no</text></svg><iframe src="x">no</iframe>');
    expect(result.text).toBe('keep');
  });

  it('falls back to plain text, quickly, for pathologically deep markup', () => {
    const depth = 50_000; // takes turndown minutes and then overflows its stack
    const html = `${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}`;
    const started = performance.now();
    const result = htmlToMarkdown(html);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result).toEqual({ text: 'deep text', method: 'text-fallback' });
  });

  it('keeps a megabyte of ordinary HTML within a couple of seconds', () => {
    const block = '<div><h3>Item</h3><p>Some <b>bold</b> text, <a href="/x">a link</a>.</p><ul><li>a</li><li>b</li></ul></div>';
    const html = block.repeat(Math.ceil(1_048_576 / block.length));
    const started = performance.now();
    const result = htmlToMarkdown(html);
    expect(result.method).toBe('turndown');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('measureNestingDepth', () => {
  it('counts real nesting and ignores void and optional-end elements', () => {
    expect(measureNestingDepth('<div><section><span>x</span></section></div>')).toBe(3);
    expect(measureNestingDepth('<ul>' + '<li>item'.repeat(5_000) + '</ul>')).toBe(1);
    expect(measureNestingDepth('<p>' + '<br><img src=x><input>'.repeat(1_000))).toBe(0);
    expect(measureNestingDepth('<script>' + '<div>'.repeat(1_000) + '</script>')).toBe(1);
    expect(measureNestingDepth('<b>'.repeat(MAX_HTML_NESTING_DEPTH + 1))).toBe(MAX_HTML_NESTING_DEPTH + 1);
  });

  it('stays linear on hostile input', () => {
    const inputs = ['<a'.repeat(300_000) + '>', '<'.repeat(600_000), '<!--'.repeat(200_000), '<script>'.repeat(100_000)];
    for (const input of inputs) {
      const started = performance.now();
      measureNestingDepth(input);
      htmlToPlainText(input);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

describe('htmlToPlainText', () => {
  it('strips tags and raw-text elements and decodes entities', () => {
    const text = htmlToPlainText('<!doctype html><title>T</title><p>a &amp; b &lt;c&gt; &#233;&#x41;</p><script>if (a < b) {}</script><div>next</div> 1 < 2');
    expect(text).toBe('T\na & b <c> éA\nnext\n1 < 2');
  });
});

describe('convertHtmlToMarkdown (off the event loop)', () => {
  afterAll(async () => {
    await closeMarkdownThreads();
  });

  const page = `<html><body>${Array.from({ length: 3_000 }, (_, index) => `<h2>Part ${index}</h2><p>Text with <a href="https://x.test/${index}">a link</a> and <em>emphasis</em>.</p><ul><li>one</li><li>two</li></ul>`).join('')}</body></html>`;

  it('converts a large page on a worker thread to exactly what the inline conversion gives', async () => {
    expect(page.length).toBeGreaterThan(INLINE_CONVERSION_MAX_CHARS);
    expect(await convertHtmlToMarkdown(page)).toEqual(htmlToMarkdown(page));
  });

  it('keeps the event loop turning while it converts', async () => {
    await warmMarkdownThreads();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const ticksAtEnd = await convertHtmlToMarkdown(page + page + page).then(() => ticks);
    clearInterval(timer);
    // Inline, the conversion would hold the loop for its whole duration: no tick could run before it ends.
    expect(ticksAtEnd).toBeGreaterThan(0);
  });

  it('converts small pages in place and many pages at once', async () => {
    expect(await convertHtmlToMarkdown('<p>a <b>b</b></p>')).toEqual({ text: 'a **b**', method: 'turndown' });
    const results = await Promise.all(Array.from({ length: 6 }, (_, index) => convertHtmlToMarkdown(`${page}<p>page ${index}</p>`)));
    results.forEach((result, index) => expect(result.text.endsWith(`page ${index}`)).toBe(true));
  });
});
