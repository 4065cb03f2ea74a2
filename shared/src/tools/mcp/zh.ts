import type { ToolTypeText } from '../define-tool-type';

/** The mcp type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const mcpTextZh: ToolTypeText = {
  label: 'MCP 服务器',
  summary: '提供一个 MCP（模型上下文协议）服务器的工具：Streamable HTTP 或 HTTP+SSE；运维方允许时也可以是本地 stdio 服务器。',
  effect: '按每个服务器工具的注解判断：readOnlyHint 为无副作用，idempotentHint 为可安全重试，其余为绝不重复执行。',
  config: {
    transport: { title: '传输方式', description: '"http"：远程服务器（Streamable HTTP，不支持时退回较早的 HTTP+SSE）。"stdio"：本地命令，仅当运维方在 MCP_STDIO_COMMANDS 中允许时可用。' },
    url: { title: '服务器地址', description: '服务器端点，例如 https://mcp.example.com/mcp（http 传输）。' },
    command: { title: '命令', description: 'stdio 传输：要启动的可执行文件，必须列在 MCP_STDIO_COMMANDS 中。' },
    args: { title: '命令参数', description: 'stdio 传输：命令行参数。' },
    allowedTools: { title: '提供的工具', description: '提供给模型的服务器工具；留空则全部提供。' },
    approvalRequired: { title: '需要审批的工具', description: '调用要等人工批准的工具（"*" 表示全部）。' },
    timeout: { title: '超时（毫秒）', description: '一次工具调用在被取消前可用的毫秒数。' },
  },
};
