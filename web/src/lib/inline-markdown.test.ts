import { describe, expect, it } from 'vitest';
import { renderInlineMarkdown } from './inline-markdown.ts';

describe('renderInlineMarkdown', () => {
  it('renders links and bold without a paragraph, links opening in a new tab', () => {
    expect(renderInlineMarkdown('Read **the notes**: [changes](https://example.com/x)')).toBe(
      'Read <strong>the notes</strong>: <a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">changes</a>',
    );
  });

  it('shows raw HTML as text and drops script links', () => {
    const html = renderInlineMarkdown('<img src=x onerror=alert(1)> [click](javascript:alert(1))');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img');
    expect(html).not.toContain('javascript:');
  });
});
