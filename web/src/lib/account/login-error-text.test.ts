import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api.ts';
import { setLocale } from '../i18n/i18n.svelte.ts';
import { loginErrorText } from './login-error-text.ts';

const wrongPassword = new ApiError({ status: 401, code: 'invalid_credentials', message: 'Email or password is incorrect' });
const throttled = (retryAfterSeconds: number) =>
  new ApiError({ status: 429, code: 'too_many_attempts', message: 'Too many failed sign-ins. Try again in 2 minutes.', details: { retryAfterSeconds } });

describe('loginErrorText', () => {
  afterEach(() => setLocale('en'));

  it('says a wrong password and a throttled sign-in in English, with the wait', () => {
    expect(loginErrorText(wrongPassword)).toBe('Email or password is incorrect.');
    expect(loginErrorText(throttled(90))).toBe('Too many failed sign-ins. Try again in 2 minutes.');
    expect(loginErrorText(throttled(1))).toBe('Too many failed sign-ins. Try again in 1 second.');
  });

  it('says them in Chinese when the UI is in Chinese', () => {
    setLocale('zh');
    expect(loginErrorText(wrongPassword)).toBe('邮箱或密码不正确。');
    expect(loginErrorText(throttled(600))).toBe('登录失败次数过多，请10分钟后再试。');
  });

  it('says an unconfirmed email, a dead emailed link and too many emails asked for, in either language', () => {
    const unverified = new ApiError({ status: 403, code: 'email_unverified', message: 'Confirm your email first' });
    const deadLink = new ApiError({ status: 400, code: 'invalid_link', message: 'This link does not work any more' });
    expect(loginErrorText(unverified)).toBe('Confirm your email first: follow the link we emailed you when you signed up.');
    expect(loginErrorText(deadLink)).toContain('links last an hour');
    expect(loginErrorText(new ApiError({ status: 429, code: 'rate_limited', message: 'Too many' }))).toBe('Too many emails were asked for. Try again later.');
    setLocale('zh');
    expect(loginErrorText(unverified)).toBe('请先确认邮箱：打开注册时我们发给你的邮件中的链接。');
  });

  it('keeps any other API error as worded, and has a fallback for the rest', () => {
    expect(loginErrorText(new ApiError({ status: 0, message: 'Cannot reach the server' }))).toBe('Cannot reach the server');
    expect(loginErrorText(new Error('boom'))).toBe('Login failed. Please try again.');
  });
});
