/**
 * The API's validation messages in the UI's language. The API writes its messages in English for
 * every client (see `humanError` in @agentq/shared and the schemas' own messages); the UI knows their
 * shapes and says them in the current language. A message it does not know is shown as it came.
 */
import { t, type MessageKey } from '../i18n/i18n.svelte.ts';

const SHAPES: [RegExp, MessageKey][] = [
  [/^Required$/, 'issue.required'],
  [/^Enter at least (?<count>\d+) characters$/, 'issue.minChars'],
  [/^(?:Use at most|Keep the \w+ under) (?<count>[\d,]+) characters$/, 'issue.maxChars'],
  [/^Add at least one$/, 'issue.addOne'],
  [/^Add at least (?<count>\d+)$/, 'issue.addAtLeast'],
  [/^Use at most (?<count>\d+)$/, 'issue.useAtMost'],
  [/^Must be more than (?<value>.+)$/, 'issue.moreThan'],
  [/^Must be (?<value>.+) or more$/, 'issue.atLeast'],
  [/^Must be less than (?<value>.+)$/, 'issue.lessThan'],
  [/^Must be (?<value>.+) or less$/, 'issue.atMost'],
  [/^Use at least (?<count>[\d,]+) tokens$/, 'issue.minTokens'],
  [/^Use at most (?<count>[\d,]+) tokens$/, 'issue.maxTokens'],
  [/^Enter an email address, e\.g\. (?<example>\S+)$/, 'issue.email'],
  [/^Enter a URL, e\.g\. (?<example>\S+)$/, 'issue.url'],
  [/^Enter an http:\/\/ or https:\/\/ URL, e\.g\. (?<example>\S+)$/, 'issue.httpUrl'],
  [/^Has characters that are not allowed here$/, 'issue.regex'],
  [/^Use letters, digits, "_" and "-" only/, 'issue.slug'],
  [/^Password must be at least (?<count>\d+) characters$/, 'issue.passwordShort'],
  [/^Enter a name$/, 'issue.name'],
  [/^Enter your name$/, 'issue.yourName'],
  [/^Enter your current password$/, 'issue.currentPassword'],
  [/^Give the chat a name$/, 'issue.chatName'],
  [/^Write a message$/, 'issue.message'],
  [/^The title must not be empty$/, 'issue.title'],
  [/^The title is at most (?<count>\d+) characters$/, 'issue.maxChars'],
  [/^Give the words to search for$/, 'issue.searchWords'],
  [/^Does not match any of the allowed shapes$/, 'issue.union'],
  [/^Choose one of: (?<values>.+)$/, 'issue.choose'],
  [/^Unknown fields?: (?<keys>.+)$/, 'issue.unknownKeys'],
  [/^Expected a whole number$/, 'issue.expectedInteger'],
  [/^Expected a number$/, 'issue.expectedNumber'],
  [/^Expected a string$/, 'issue.expectedString'],
  [/^Expected a boolean$/, 'issue.expectedBoolean'],
  [/^Expected a list$/, 'issue.expectedList'],
  [/^Expected an object$/, 'issue.expectedObject'],
];

/**
 * @example issueText('Enter at least 8 characters') // "至少输入 8 个字符" in Chinese, unchanged in English
 */
export function issueText(message: string): string {
  for (const [shape, key] of SHAPES) {
    const match = shape.exec(message.trim());
    if (match) return t(key, match.groups);
  }
  return message;
}
