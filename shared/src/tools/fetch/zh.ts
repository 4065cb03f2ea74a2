import type { ToolTypeText } from '../define-tool-type';

/** The fetch type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const fetchTextZh: ToolTypeText = {
  label: '网页抓取',
  summary: '抓取公开网页或 HTTP API，并以 Markdown、JSON 或纯文本返回其内容。',
  effect: 'GET、HEAD、OPTIONS、PUT 和 DELETE 是幂等的（RFC 9110）；POST 和 PATCH 不是，会带上 Idempotency-Key。',
  config: {
    defaultMethod: { title: '默认方法', description: '调用未指定方法时使用的 HTTP 方法。' },
    defaultHeaders: { title: '默认请求头', description: '每个请求都带上的请求头（例如 API 密钥）；调用中的同名请求头会覆盖它们。' },
    timeout: { title: '超时（毫秒）', description: '整个抓取（含重定向和响应体）可用的毫秒数，最多 60000。' },
    maxResponseSize: { title: '最大响应字节数', description: '从响应体最多读取的字节数（最多 1048576）；更长的响应体会被截断并标记。' },
    allowedDomains: { title: '允许的域名', description: '工具可以抓取的主机。"*" 或空列表表示全部允许；"*.example.com" 只匹配子域名，要允许 example.com 本身请一并列出。' },
    blockedDomains: { title: '禁止的域名', description: '工具绝不能抓取的主机，写法与允许的域名相同。禁止优先于允许。' },
    parseMode: { title: '解析方式', description: '响应体的返回方式："markdown" 把 HTML 转成 Markdown（其他文本原样返回），"raw" 原样返回文本，"json" 解析 JSON，不是有效 JSON 时返回原始文本。' },
  },
};
