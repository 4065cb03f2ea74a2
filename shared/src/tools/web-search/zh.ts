import type { ToolTypeText } from '../define-tool-type';

/** The web-search type's admin texts in Chinese: its name, summary, effect rule and config form. */
export const webSearchTextZh: ToolTypeText = {
  label: '网页搜索',
  summary: '通过 SearXNG、Brave Search 或 Tavily 搜索网页，返回标题、链接和摘要。',
  effect: '只读：搜索不会改变任何东西，因此调用随时可以重新执行。',
  config: {
    provider: {
      title: '搜索服务',
      description: '由谁执行搜索："searxng"（自行部署的 SearXNG 实例，无需密钥）、"brave"（Brave Search API）或 "tavily"（Tavily）；Brave 和 Tavily 需要填写密钥 apiKey。',
    },
    baseUrl: {
      title: '服务地址',
      description: '搜索服务的地址。使用 searxng 时必填（实例的根地址，例如 https://searx.example.org）；brave 和 tavily 留空即使用其官方接口。私有或本机地址需要运维开启 FETCH_ALLOW_PRIVATE_NETWORKS。',
    },
    maxResults: { title: '最多结果数', description: '一次搜索最多返回的结果数（1 到 20）；调用时可以要求更少。' },
    safeSearch: { title: '安全搜索', description: '成人内容过滤："off"（关闭）、"moderate"（适中）或 "strict"（严格）。适用于 SearXNG 和 Brave；Tavily 没有此设置。' },
    language: {
      title: '语言',
      description: '结果的语言，原样传给服务：SearXNG 的 "language"（例如 "en"、"zh-CN"），Brave 的 "search_lang"（例如 "en"、"zh-hans"）；留空则用服务的默认值。Tavily 忽略此项。',
    },
    timeout: { title: '超时（毫秒）', description: '一次搜索可用的毫秒数，最多 60000。' },
  },
};
