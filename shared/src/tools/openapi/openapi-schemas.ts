import { z } from 'zod';
import { MAX_RESPONSE_BYTES, MAX_TIMEOUT_MS } from '../fetch/fetch-schemas';

/** Largest pasted or fetched OpenAPI document. */
export const MAX_SPEC_BYTES = 2 * 1024 * 1024;

/** Per-instance settings of an imported OpenAPI description; `parse({})` gives the defaults (no spec yet). */
export const openApiConfigSchema = z.object({
  specUrl: z.string().max(2000).default('').describe('Where to fetch the OpenAPI/Swagger document (JSON or YAML), through the same SSRF checks as the fetch tool.'),
  spec: z.string().max(MAX_SPEC_BYTES).default('').describe('Or the document itself, pasted as JSON or YAML (used when specUrl is empty).'),
  baseUrl: z.string().max(2000).default('').describe("Override for the API's base URL (default: the document's first server)."),
  operations: z.array(z.string().max(200)).max(1000).default([]).describe('operationIds offered to the model; empty offers every operation.'),
  approvalRequired: z.array(z.string().max(200)).max(1000).default([]).describe('operationIds whose calls wait for a human approval ("*" for all).'),
  auth: z
    .object({
      type: z.enum(['none', 'apiKey', 'bearer']).default('none').describe('"apiKey": the secret token in a header or query parameter; "bearer": Authorization: Bearer <token>.'),
      in: z.enum(['header', 'query']).default('header').describe('apiKey: where the key goes.'),
      name: z.string().min(1).max(200).default('X-API-Key').describe('apiKey: the header or query parameter name.'),
    })
    .default({ type: 'none', in: 'header', name: 'X-API-Key' })
    .describe('How calls authenticate; the token itself is a write-only secret.'),
  timeout: z.number().int().min(100).max(MAX_TIMEOUT_MS).default(15_000).describe('Milliseconds for one call (at most 60000).'),
  maxResponseSize: z.number().int().min(1).max(MAX_RESPONSE_BYTES).default(102_400).describe('Most bytes read from a response (at most 1048576); longer ones are cut off and flagged truncated.'),
});

export type OpenApiConfig = z.output<typeof openApiConfigSchema>;

/** Write-only: the API key or bearer token, stored encrypted. */
export const openApiSecretsSchema = z.object({
  token: z.string().min(1).max(8000).optional().describe('The API key or bearer token.'),
});

/** Arguments follow each operation's own schema (parameters by name, the JSON body as `body`). */
export const openApiInputSchema = z.record(z.string(), z.unknown());

/** What an operation needs to be called later; stored in the discovery snapshot. */
export type OperationCall = {
  method: string;
  path: string;
  serverUrl: string | null;
  parameters: { name: string; in: 'path' | 'query' | 'header' }[];
  body: boolean;
};
