import type { ToolTypeText } from '../define-tool-type';

/** The code type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const codeTextZh: ToolTypeText = {
  label: '代码（JavaScript）',
  summary: '在隔离的沙箱中运行 JavaScript 程序，用于计算、解析或转换数据（CSV、JSON、文本）。',
  effect: '沙箱中的纯计算：调用之外没有任何影响。',
  config: {
    timeoutMs: { title: '时间限制', description: '单个程序最长运行时间，单位毫秒（100–10000）。' },
    memoryLimitMb: { title: '内存限制', description: '单个程序最多可用的内存，单位 MB（8–128）。' },
    maxOutputChars: { title: '最大输出字符数', description: '返回给模型的结果和控制台输出的最多字符数；超出部分会被截断并附说明。' },
  },
};
