import { z } from 'zod';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const MAX_TIMEOUT_MS = 60_000;
export const MAX_RESPONSE_BYTES = 1_048_576;

const headersSchema = z.record(z.string(), z.string());

/** Per-instance settings an admin edits; every field has a default so `parse({})` is the default config. */
export const fetchConfigSchema = z.object({
  defaultMethod: z.enum(HTTP_METHODS).default('GET').describe('HTTP method used when a call does not name one.'),
  defaultHeaders: headersSchema
    .default({})
    .describe('Headers sent with every request (e.g. an API key); headers in a call override them.'),
  timeout: z
    .number()
    .int()
    .min(100)
    .max(MAX_TIMEOUT_MS)
    .default(10_000)
    .describe('Milliseconds for the whole fetch, redirects and body included (at most 60000).'),
  maxResponseSize: z
    .number()
    .int()
    .min(1)
    .max(MAX_RESPONSE_BYTES)
    .default(102_400)
    .describe('Most bytes read from a response body (at most 1048576); longer bodies are cut off and flagged truncated.'),
  allowedDomains: z
    .array(z.string())
    .default(['*'])
    .describe(
      'Hosts the tool may fetch. "*" or an empty list allows all; "*.example.com" matches subdomains only, so list "example.com" too to allow the apex.',
    ),
  blockedDomains: z
    .array(z.string())
    .default([])
    .describe('Hosts the tool must never fetch, same patterns as allowedDomains. Blocking wins over allowing.'),
  parseMode: z
    .enum(['markdown', 'raw', 'json'])
    .default('markdown')
    .describe(
      'How the body is returned: "markdown" converts HTML to Markdown (other text as is), "raw" returns the text unchanged, "json" parses JSON and falls back to raw text when it is not valid JSON.',
    ),
});

export type FetchConfig = z.output<typeof fetchConfigSchema>;

/** What the model passes on each call. */
export const fetchInputSchema = z.object({
  url: z.string().min(1).describe('Absolute http:// or https:// URL to fetch.'),
  method: z.enum(HTTP_METHODS).optional().describe('HTTP method; defaults to the tool configuration (usually GET).'),
  headers: headersSchema.optional().describe('Extra request headers, e.g. {"Accept": "application/json"}.'),
  body: z.string().optional().describe('Request body for POST, PUT or PATCH, sent as given (set Content-Type in headers).'),
});

export type FetchInput = z.output<typeof fetchInputSchema>;
