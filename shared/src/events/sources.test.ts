import { describe, expect, it } from 'vitest';
import { boundedSnippet, citedNumbers, highestSourceIndex, shownSources, sourcesOfOutput, sourcesOfParts, type AnswerSource } from './sources';

const source = (index: number, extra: Partial<AnswerSource> = {}): AnswerSource => ({ index, kind: 'web', title: `Page ${index}`, url: `https://example.com/${index}`, snippet: `snippet ${index}`, ...extra });
const toolPart = (sources: unknown[], state = 'output-available') => ({ type: 'tool-search', state, output: { success: true, text: '', metadata: { durationMs: 1, sources } } });

describe('answer sources', () => {
  it('reads the sources of an answer from its tool outputs, by number, skipping malformed ones and unfinished calls', () => {
    const parts = [
      toolPart([source(3), source(1)]),
      { type: 'text', text: 'hi [1]' },
      toolPart([source(2), { index: 0, kind: 'web', title: 'x', snippet: '' }, { ...source(4), url: 'javascript:alert(1)' }, source(1, { title: 'duplicate' })]),
      toolPart([source(9)], 'input-available'),
      { type: 'dynamic-tool', state: 'output-available', output: { metadata: { sources: [source(5)] } } },
    ];
    expect(sourcesOfParts(parts).map((found) => [found.index, found.title])).toEqual([
      [1, 'Page 1'],
      [2, 'Page 2'],
      [3, 'Page 3'],
      [5, 'Page 5'],
    ]);
    expect(sourcesOfOutput(null)).toEqual([]);
    expect(sourcesOfOutput({ metadata: { sources: 'nope' } })).toEqual([]);
    expect(highestSourceIndex([parts[0]!.output, undefined, { metadata: { sources: [source(7)] } }])).toBe(7);
  });

  it('finds [n] and [n, m] citations outside code, in order, and never a [n](url) link', () => {
    const text = 'First [2], then [1, 3].\n`array[4]` and [5](https://x.test)\n```\nlist[6]\n```\nLast [7][2]';
    expect(citedNumbers(text)).toEqual([2, 1, 3, 7]);
  });

  it('shows the cited sources under an answer, or all of them when it cites none', () => {
    const sources = [source(1), source(2), source(3)];
    expect(shownSources(sources, 'Only [2] and [9].').map((shown) => shown.index)).toEqual([2]);
    expect(shownSources(sources, 'No markers.').map((shown) => shown.index)).toEqual([1, 2, 3]);
  });

  it('bounds snippets', () => {
    expect(boundedSnippet('a  b\n\nc', 10)).toBe('a b c');
    expect(boundedSnippet('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
