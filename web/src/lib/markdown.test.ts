import { describe, expect, it } from 'vitest';
import { loadLanguage } from './code-highlight.ts';
import { loadMath } from './math.ts';
import { renderMarkdown } from './markdown.ts';

describe('renderMarkdown', () => {
  it('renders GFM with line breaks', () => {
    const html = renderMarkdown('# Title\n\nline one\nline two\n\n- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('line one<br>line two');
    expect(html).toContain('<li>a</li>');
    expect(html).toContain('<td>1</td>');
  });

  it('keeps Markdown below a lone tag line, shown as text (the fetch tool fence)', () => {
    const html = renderMarkdown('url: http://x.test\nstatus: 200\n<untrusted-content id="ab12">\n# Hello\n\nBody\n</untrusted-content id="ab12">');
    expect(html).toContain('<h1>Hello</h1>');
    expect(html).toContain('&lt;untrusted-content id="ab12"&gt;');
    expect(html).toContain('status: 200');
    expect(html).not.toContain('<untrusted-content');
  });

  it('ends a list at a lone tag line, but leaves tag lines inside code fences alone', () => {
    const html = renderMarkdown('- first\n- second\n</untrusted-content id="ab12">\n\n```html\n<div>\n```');
    expect(html).toContain('<li>second</li>');
    expect(html).toContain('<p class="markdown-tag"><code>&lt;/untrusted-content id="ab12"&gt;</code></p>');
    expect(html).toContain('<pre><code class="hljs language-xml">&lt;div&gt;\n</code></pre>');
  });

  it('never renders raw HTML or script URLs', () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)>\n\nhi <b onclick="x()">bold</b> [link](javascript:alert(1))');
    expect(html).not.toMatch(/<img|<b[ >]|href=/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;b onclick="x()"&gt;');
  });

  it('opens links in a new tab', () => {
    expect(renderMarkdown('[docs](https://example.com/a?b=1&c=2)')).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer nofollow">docs</a></p>\n',
    );
  });

  it('links images instead of loading them', () => {
    const html = renderMarkdown('![logo](https://tracker.example/pixel.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('href="https://tracker.example/pixel.png"');
    expect(html).toContain('[image: logo]');
  });

  it('wraps code blocks with their language and a Copy button, and highlights once the language is loaded', async () => {
    const source = '```python\ndef greet(name):\n    return f"hi {name}"\n```';
    const plain = renderMarkdown(source);
    expect(plain).toContain('<span class="code-language">python</span>');
    expect(plain).toContain('data-copy-code');
    await loadLanguage('python');
    const html = renderMarkdown(source);
    expect(html).toContain('<span class="hljs-keyword">def</span>');
    expect(html).toContain('<span class="hljs-title function_">greet</span>');
    // Unknown languages and script-like content stay escaped text.
    expect(renderMarkdown('```nosuchlang\n<script>x()</script>\n```')).toContain('&lt;script&gt;x()&lt;/script&gt;');
  });

  it('offers a Preview of HTML and SVG code blocks only, the code still shown as escaped text', () => {
    const html = renderMarkdown('```html\n<button onclick="go()">Go</button>\n```');
    expect(html).toContain('data-preview-code="html"');
    expect(html).not.toContain('<button onclick');
    expect(renderMarkdown('```SVG\n<svg></svg>\n```')).toContain('data-preview-code="SVG"');
    for (const other of ['```python\nx = 1\n```', '```\n<p>hi</p>\n```', '```javascript\nalert(1)\n```']) expect(renderMarkdown(other)).not.toContain('data-preview-code');
  });

  it('typesets TeX in the delimiters models write once KaTeX is loaded, the source shown until then', async () => {
    expect(renderMarkdown('Area: $\\pi r^2$')).toContain('<span class="math math-inline math-pending">$\\pi r^2$</span>');
    await loadMath();
    const inline = renderMarkdown('Euler: $e^{i\\pi}+1=0$ and \\(x_1\\).');
    expect(inline.match(/class="math math-inline"><span class="katex">/g)).toHaveLength(2);
    expect(inline).toContain('<annotation encoding="application/x-tex">e^{i\\pi}+1=0</annotation>');
    expect(inline).toContain('<mi>π</mi>');
    const block = renderMarkdown('Then\n\n$$\n\\frac{a}{b}\n$$\n\nand \\[\\sqrt{2}\\] inline.');
    expect(block).toContain('<div class="math math-display"><span class="katex-display">');
    expect(block).toContain('<mfrac><mi>a</mi><mi>b</mi></mfrac>');
    expect(block).toContain('<span class="math math-display"><span class="katex-display">');
    expect(block).toContain('<msqrt><mn>2</mn></msqrt>');
  });

  it('leaves prices, escaped dollars and code alone, and shows a formula it cannot parse as its source', async () => {
    await loadMath();
    expect(renderMarkdown('costs $5 and $10, or $5-$10')).toBe('<p>costs $5 and $10, or $5-$10</p>\n');
    expect(renderMarkdown('\\$x$ stays')).not.toContain('katex');
    expect(renderMarkdown('`$x$` and\n\n```\n$$y$$\n```')).not.toContain('katex');
    const broken = renderMarkdown('$\\frac{$');
    expect(broken).toContain('class="katex-error"');
    expect(broken).toContain('>\\frac{</span>');
  });

  it('gives formulas no links, HTML or unbounded expansion', async () => {
    await loadMath();
    const html = renderMarkdown('$\\href{javascript:alert(1)}{x}\\url{https://a.test}$ $\\htmlClass{x}{y}$');
    expect(html).not.toMatch(/<a |href=|class="x"/);
    const bomb = renderMarkdown('$\\def\\a{\\a\\a}\\a$');
    expect(bomb).toContain('katex-error');
  });

  it('marks a Mermaid block for drawing only once its closing fence has arrived', () => {
    const streaming = renderMarkdown('```mermaid\nflowchart LR\n  A --> B');
    expect(streaming).not.toContain('diagram-block');
    expect(streaming).toContain('A --&gt; B');
    const finished = renderMarkdown('```mermaid\nflowchart LR\n  A --> B\n```\n\nafter');
    expect(finished).toContain('<div class="code-block diagram-block">');
    // Drawn in the browser only: on the server (and here) the block shows its code.
    expect(finished).toContain('<pre><code class="hljs">flowchart LR\n  A --&gt; B\n</code></pre>');
    expect(renderMarkdown('```python\nx = 1\n```')).not.toContain('diagram-block');
  });
});

describe('renderMarkdown citations', () => {
  const sources = new Set([1, 2, 4]);

  it('turns [n] of a known source into a chip, and [n, m] into one chip each', () => {
    const html = renderMarkdown('Leave is 25 days [1]. Carry-over ends in March [2, 4].', sources);
    expect(html).toContain('25 days <button type="button" class="citation" data-citation="1" aria-label="Source 1">1</button>.');
    expect(html).toContain('data-citation="2" aria-label="Source 2">2</button><button type="button" class="citation" data-citation="4"');
    expect(html).not.toContain('[1]');
  });

  it('leaves unknown numbers, links and text without sources plain', () => {
    const html = renderMarkdown('See [3] and [1, 9] and [1](https://example.com) and [x].', sources);
    expect(html).not.toContain('data-citation');
    expect(html).toContain('See [3] and [1, 9] and <a href="https://example.com"');
    expect(renderMarkdown('Known [1] but no sources given.')).not.toContain('data-citation');
  });

  it('never touches code blocks or inline code', () => {
    const html = renderMarkdown('Array `items[1]` is second [1].\n\n```text\nconst first = list[1];\n```', sources);
    expect(html).toContain('<code>items[1]</code>');
    expect(html).toContain('list[1];');
    expect(html.match(/data-citation/g)).toHaveLength(1);
  });

  it('renders chips inside lists and tables, and in a streaming text cut mid-marker', () => {
    expect(renderMarkdown('- point [2]\n\n| a | b |\n|---|---|\n| x [4] | y |', sources).match(/data-citation/g)).toHaveLength(2);
    const cut = renderMarkdown('Leave is 25 days [1', sources);
    expect(cut).toContain('Leave is 25 days [1');
    expect(cut).not.toContain('data-citation');
  });
});
