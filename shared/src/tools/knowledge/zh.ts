import type { ToolTypeText } from '../define-tool-type';

/** The knowledge type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const knowledgeTextZh: ToolTypeText = {
  label: '知识库',
  summary: '在所附知识库的文件中检索与问题最相关的段落，并注明出自哪个文件。',
  effect: '只读：检索不会改变任何东西，因此调用随时可以重新执行。',
  config: {
    knowledgeBaseIds: { title: '知识库', description: '此工具检索的知识库 ID（见“知识库”页面上各库的 ID）；只能附加你自己的知识库。' },
    userBases: { title: '按提问者检索', description: "另外检索随提问者而定的知识库：'shared' 加上管理员共享给提问者的知识库（共享给所有人或其所在的组）；'own-and-shared' 再加上提问者自己的知识库；'none' 只检索所附的知识库。" },
    topK: { title: '返回段落数', description: '一次检索返回的段落数，按相关度排序（1 到 20）。' },
  },
};
