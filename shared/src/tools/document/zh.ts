import type { ToolTypeText } from '../define-tool-type';

/** The document type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const documentTextZh: ToolTypeText = {
  label: '文档',
  summary: '跨会话读写用户的记忆和文档：摘要与 token 预算、全文搜索、定点编辑、版本。',
  effect: 'read、list 和 search 不改变任何内容；其余操作都会写入，且恰好一次：写入与调用日志一起提交。',
  config: {
    maxContentLength: { title: '最大内容长度', description: '文档内容的最大长度，以字符计。' },
    defaultSummaryLength: { title: '默认摘要长度', description: '未提供摘要时从内容截取的摘要长度，以字符计。' },
    tokenBudget: { title: 'Token 预算', description: 'read、list 和 search 最多返回的 token 数（用真实的分词器计数）。' },
    maxPageSize: { title: '每页最多条数', description: '一次 list 或 search 最多返回的文档数。' },
    approvalRequiredActions: { title: '需要审批的操作', description: '要等用户批准才执行的操作。' },
  },
};
