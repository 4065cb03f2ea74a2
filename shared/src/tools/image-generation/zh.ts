import type { ToolTypeText } from '../define-tool-type';

/** The image-generation type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const imageGenerationTextZh: ToolTypeText = {
  label: '图像生成',
  summary: '用标记为“生成图像”的模型按描述画一张图，图片显示在对话中。',
  effect: '每次调用生成一张新图，保存在对话中；同一调用重新执行时沿用已保存的图片。',
  config: {
    size: { title: '默认尺寸', description: '调用未指定尺寸时的图片尺寸：1024x1024（方形）、1024x1792（竖版）或 1792x1024（横版）。' },
    timeoutMs: { title: '超时（毫秒）', description: '图像模型生成一张图可用的毫秒数，最多 300000。' },
  },
};
