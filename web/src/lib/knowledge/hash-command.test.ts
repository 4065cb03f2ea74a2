import { describe, expect, it } from 'vitest';
import { chosenBasesOf, hashQuery, matchBases, withoutHashQuery } from './hash-command.ts';

const base = (id: string, name: string) => ({ id, name });

describe('the # menu', () => {
  it('opens for a # that starts the draft’s last word, not for a web page or a # inside a word', () => {
    expect(hashQuery('#')).toBe('');
    expect(hashQuery('What does #Hand')).toBe('hand');
    expect(hashQuery('line\n#po')).toBe('po');
    for (const draft of ['', 'hello', 'issue#12', '#hand ', '#https://example.org', 'read #https:', '##']) expect(hashQuery(draft), draft).toBeUndefined();
  });

  it('takes the #word out of the draft and keeps the rest', () => {
    expect(withoutHashQuery('What does #Hand')).toBe('What does ');
    expect(withoutHashQuery('#')).toBe('');
    expect(withoutHashQuery('no hash')).toBe('no hash');
  });

  it('lists names starting with the query first, then containing it, leaving out the bases already chosen', () => {
    const bases = [base('a', 'HR handbook'), base('b', 'Handover notes'), base('c', 'Policies'), base('d', 'Hand tools')];
    expect(matchBases(bases, 'hand').map((entry) => entry.id)).toEqual(['b', 'd', 'a']);
    expect(matchBases(bases, '', [{ id: 'a' }]).map((entry) => entry.id)).toEqual(['b', 'c', 'd']);
    expect(matchBases(bases, 'zzz')).toEqual([]);
  });

  it('reads the chosen bases back from a stored question', () => {
    expect(chosenBasesOf([{ type: 'text' }, { type: 'data-knowledge-bases', data: { bases: [{ id: 'kb_1', name: 'Handbook', extra: 1 }, { id: 2 }] } }])).toEqual([{ id: 'kb_1', name: 'Handbook' }]);
    expect(chosenBasesOf([{ type: 'text' }])).toEqual([]);
  });
});
