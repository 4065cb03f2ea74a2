import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../i18n/i18n.svelte.ts';
import { issueText } from './issue-text.ts';

describe('issueText', () => {
  afterEach(() => setLocale('en'));

  it('says the API messages it knows in the UI language, with their numbers and examples', () => {
    setLocale('zh');
    expect(issueText('Required')).toBe('必填');
    expect(issueText('Enter at least 8 characters')).toBe('至少输入 8 个字符');
    expect(issueText('Password must be at least 8 characters')).toBe('密码至少需要 8 个字符');
    expect(issueText('Enter an email address, e.g. ada@example.com')).toBe('请输入邮箱地址，例如 ada@example.com');
    expect(issueText('Use at most 32,000 tokens')).toBe('最多 32,000 个词元');
  });

  it('keeps English as the API wrote it, and an unknown message as it came', () => {
    expect(issueText('Enter at least 8 characters')).toBe('Enter at least 8 characters');
    setLocale('zh');
    expect(issueText('The fetch tool refused 10.0.0.1')).toBe('The fetch tool refused 10.0.0.1');
  });
});
