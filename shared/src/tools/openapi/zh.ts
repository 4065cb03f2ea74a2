import type { ToolTypeText } from '../define-tool-type';

/** The openapi type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const openApiTextZh: ToolTypeText = {
  label: 'OpenAPI 导入',
  summary: '把 OpenAPI（3.0、3.1）或 Swagger 2.0 描述中的操作变成工具。',
  effect: '按每个操作的方法判断：GET/HEAD 无副作用，PUT/DELETE 可安全重试，POST/PATCH 绝不重复执行。',
  config: {
    specUrl: { title: '描述文档地址', description: '获取 OpenAPI/Swagger 文档（JSON 或 YAML）的地址，经过与网页抓取工具相同的 SSRF 检查。' },
    spec: { title: '描述文档', description: '或者直接粘贴文档本身（JSON 或 YAML），在文档地址为空时使用。' },
    baseUrl: { title: '基础 URL', description: '覆盖 API 的基础 URL（默认：文档中的第一个服务器）。' },
    operations: { title: '提供的操作', description: '提供给模型的 operationId；留空则提供全部操作。' },
    approvalRequired: { title: '需要审批的操作', description: '调用要等人工批准的 operationId（"*" 表示全部）。' },
    auth: {
      title: '认证',
      description: '调用如何认证；令牌本身是只写的密钥。',
      fields: {
        type: { title: '方式', description: '"apiKey"：把密钥令牌放在请求头或查询参数中；"bearer"：Authorization: Bearer <令牌>。' },
        in: { title: '位置', description: 'apiKey：密钥放在哪里。' },
        name: { title: '参数名', description: 'apiKey：请求头或查询参数的名称。' },
      },
    },
    timeout: { title: '超时（毫秒）', description: '一次调用可用的毫秒数，最多 60000。' },
    maxResponseSize: { title: '最大响应字节数', description: '从响应最多读取的字节数（最多 1048576）；更长的会被截断并标记。' },
  },
};
