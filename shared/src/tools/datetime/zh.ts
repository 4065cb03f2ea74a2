import type { ToolTypeText } from '../define-tool-type';

/** The datetime type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const datetimeTextZh: ToolTypeText = {
  label: '日期和时间',
  summary: '报告当前时间，并在不同时区之间换算、比较和推移日期。',
  effect: '读取时钟和日历：调用之外没有任何影响。',
  config: {
    defaultTimezone: { title: '默认时区', description: '调用未指定时区时使用的 IANA 时区，例如 "Europe/Berlin"。' },
  },
};
