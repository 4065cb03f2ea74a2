import type { ToolTypeText } from '../define-tool-type';

/** The calculator type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const calculatorTextZh: ToolTypeText = {
  label: '计算器',
  summary: '精确、安全地计算数学表达式（算术、函数、单位、矩阵）。',
  effect: '纯计算：调用之外没有任何影响。',
  config: {
    precision: { title: '精度', description: '答案保留的有效数字位数（1–20）。' },
  },
};
