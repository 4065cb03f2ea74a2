/**
 * The built-in tool types' admin-facing texts in Chinese: each type's name, summary and effect rule,
 * and its config form's field labels and help. English is the registry's own (`GET /api/tool-types`:
 * the summaries, the zod `.describe()` of each field, labels derived from the field names), so only
 * other languages are kept here. What the model reads (a type's `describe`, its input schema) stays
 * English, as the i18n catalog's note says.
 */
import type { ToolTypeName } from '@agentq/shared/tools';
import type { JsonSchema } from '../components/schema-form/json-schema.ts';
import type { Locale } from '../i18n/i18n.svelte.ts';
import type { ToolTypeInfo } from './tools-api.ts';

/** A config field's form label and help; `fields` for the properties of an object field. */
export type FieldText = { title: string; description: string; fields?: Record<string, FieldText> };
export type ToolTypeText = { label: string; description: string; effect: string; config: Record<string, FieldText> };

const zh = {
  fetch: {
    label: '网页抓取',
    description: '抓取公开网页或 HTTP API，并以 Markdown、JSON 或纯文本返回其内容。',
    effect: 'GET、HEAD、OPTIONS、PUT 和 DELETE 是幂等的（RFC 9110）；POST 和 PATCH 不是，会带上 Idempotency-Key。',
    config: {
      defaultMethod: { title: '默认方法', description: '调用未指定方法时使用的 HTTP 方法。' },
      defaultHeaders: { title: '默认请求头', description: '每个请求都带上的请求头（例如 API 密钥）；调用中的同名请求头会覆盖它们。' },
      timeout: { title: '超时（毫秒）', description: '整个抓取（含重定向和响应体）可用的毫秒数，最多 60000。' },
      maxResponseSize: { title: '最大响应字节数', description: '从响应体最多读取的字节数（最多 1048576）；更长的响应体会被截断并标记。' },
      allowedDomains: {
        title: '允许的域名',
        description: '工具可以抓取的主机。"*" 或空列表表示全部允许；"*.example.com" 只匹配子域名，要允许 example.com 本身请一并列出。',
      },
      blockedDomains: { title: '禁止的域名', description: '工具绝不能抓取的主机，写法与允许的域名相同。禁止优先于允许。' },
      parseMode: {
        title: '解析方式',
        description: '响应体的返回方式："markdown" 把 HTML 转成 Markdown（其他文本原样返回），"raw" 原样返回文本，"json" 解析 JSON，不是有效 JSON 时返回原始文本。',
      },
    },
  },
  document: {
    label: '文档',
    description: '跨会话读写用户的记忆和文档：摘要与 token 预算、全文搜索、定点编辑、版本。',
    effect: 'read、list 和 search 不改变任何内容；其余操作都会写入，且恰好一次：写入与调用日志一起提交。',
    config: {
      maxContentLength: { title: '最大内容长度', description: '文档内容的最大长度，以字符计。' },
      defaultSummaryLength: { title: '默认摘要长度', description: '未提供摘要时从内容截取的摘要长度，以字符计。' },
      tokenBudget: { title: 'Token 预算', description: 'read、list 和 search 最多返回的 token 数（用真实的分词器计数）。' },
      maxPageSize: { title: '每页最多条数', description: '一次 list 或 search 最多返回的文档数。' },
      approvalRequiredActions: { title: '需要审批的操作', description: '要等用户批准才执行的操作。' },
    },
  },
  calculator: {
    label: '计算器',
    description: '精确、安全地计算数学表达式（算术、函数、单位、矩阵）。',
    effect: '纯计算：调用之外没有任何影响。',
    config: {
      precision: { title: '精度', description: '答案保留的有效数字位数（1–20）。' },
    },
  },
  datetime: {
    label: '日期和时间',
    description: '报告当前时间，并在不同时区之间换算、比较和推移日期。',
    effect: '读取时钟和日历：调用之外没有任何影响。',
    config: {
      defaultTimezone: { title: '默认时区', description: '调用未指定时区时使用的 IANA 时区，例如 "Europe/Berlin"。' },
    },
  },
  mcp: {
    label: 'MCP 服务器',
    description: '提供一个 MCP（模型上下文协议）服务器的工具：Streamable HTTP 或 HTTP+SSE；运维方允许时也可以是本地 stdio 服务器。',
    effect: '按每个服务器工具的注解判断：readOnlyHint 为无副作用，idempotentHint 为可安全重试，其余为绝不重复执行。',
    config: {
      transport: {
        title: '传输方式',
        description: '"http"：远程服务器（Streamable HTTP，不支持时退回较早的 HTTP+SSE）。"stdio"：本地命令，仅当运维方在 MCP_STDIO_COMMANDS 中允许时可用。',
      },
      url: { title: '服务器地址', description: '服务器端点，例如 https://mcp.example.com/mcp（http 传输）。' },
      command: { title: '命令', description: 'stdio 传输：要启动的可执行文件，必须列在 MCP_STDIO_COMMANDS 中。' },
      args: { title: '命令参数', description: 'stdio 传输：命令行参数。' },
      allowedTools: { title: '提供的工具', description: '提供给模型的服务器工具；留空则全部提供。' },
      approvalRequired: { title: '需要审批的工具', description: '调用要等人工批准的工具（"*" 表示全部）。' },
      timeout: { title: '超时（毫秒）', description: '一次工具调用在被取消前可用的毫秒数。' },
    },
  },
  openapi: {
    label: 'OpenAPI 导入',
    description: '把 OpenAPI（3.0、3.1）或 Swagger 2.0 描述中的操作变成工具。',
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
  },
} satisfies Record<ToolTypeName, ToolTypeText>;

/** Every language but English (the registry's), by tool type. */
export const toolTypeTexts: Partial<Record<Locale, Record<string, ToolTypeText>>> = { zh };

/**
 * The type with its admin-facing texts in `current`: its name, summary, effect rule and config form.
 * A type or field the catalog does not know (a type added later) keeps the registry's English.
 */
export function localizeToolType(toolType: ToolTypeInfo, current: Locale): ToolTypeInfo {
  const text = toolTypeTexts[current]?.[toolType.type];
  if (!text) return toolType;
  return {
    ...toolType,
    label: text.label,
    description: text.description,
    effect: { ...toolType.effect, summary: text.effect },
    configSchema: withFieldTexts(toolType.configSchema, text.config),
  };
}

function withFieldTexts(schema: JsonSchema, fields: Record<string, FieldText>): JsonSchema {
  if (!schema.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      const field = fields[key];
      if (!field) return [key, property];
      const localized = { ...property, title: field.title, description: field.description };
      return [key, field.fields ? withFieldTexts(localized, field.fields) : localized];
    }),
  );
  return { ...schema, properties };
}
