import { describe, expect, it } from 'vitest';
import { fillVariables, matchPrompts, promptDraft, slashQuery } from './slash-command.ts';

const prompt = (command: string, title: string) => ({ id: command, command, title, content: '' });

describe('the / menu', () => {
  it('opens for a draft that is a slash and a command, and only then', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/Tra')).toBe('tra');
    expect(slashQuery('/code-review')).toBe('code-review');
    for (const draft of ['', 'hello /tra', '/tra ', '/tra\nmore', '//', 'a/b']) expect(slashQuery(draft), draft).toBeUndefined();
  });

  it('lists commands starting with the query first, then those whose command or title contains it', () => {
    const prompts = [prompt('summarize', 'Summarise a page'), prompt('translate', 'Translate to French'), prompt('fr-mail', 'French e-mail'), prompt('sum-table', 'Totals')];
    expect(matchPrompts(prompts, 'sum').map((entry) => entry.command)).toEqual(['summarize', 'sum-table']);
    expect(matchPrompts(prompts, 'fr').map((entry) => entry.command)).toEqual(['fr-mail', 'translate']);
    expect(matchPrompts(prompts, '').map((entry) => entry.command)).toEqual(['summarize', 'translate', 'fr-mail', 'sum-table']);
    expect(matchPrompts(prompts, '', 2)).toHaveLength(2);
    expect(matchPrompts(prompts, 'zzz')).toEqual([]);
  });

  it('selects the first placeholder to type over, or puts the cursor at the end', () => {
    expect(promptDraft('Translate to French: {{text}} please')).toEqual({ text: 'Translate to French: {{text}} please', selection: [21, 29] });
    expect(promptDraft('Review {{ the diff }} and {{style}}').selection).toEqual([7, 21]);
    expect(promptDraft('No placeholder')).toEqual({ text: 'No placeholder', selection: [14, 14] });
  });

  it('fills the date, time, weekday and name in, then selects the first placeholder left', () => {
    const context = { now: new Date(2026, 11, 7, 9, 5), userName: 'Ada', locale: 'en' };
    expect(fillVariables('{{CURRENT_DATE}} {{ CURRENT_TIME }} / {{CURRENT_DATETIME}} / {{CURRENT_WEEKDAY}} / {{USER_NAME}} / {{other}}', context)).toBe('2026-12-07 09:05 / 2026-12-07 09:05 / Monday / Ada / {{other}}');
    expect(fillVariables('{{CURRENT_WEEKDAY}}', { ...context, locale: 'zh-CN' })).toBe('星期一');
    expect(promptDraft('Report for {{CURRENT_DATE}}: {{topic}}', context)).toEqual({ text: 'Report for 2026-12-07: {{topic}}', selection: [23, 32] });
  });
});
