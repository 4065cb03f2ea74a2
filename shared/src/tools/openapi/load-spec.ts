import SwaggerParser from '@apidevtools/swagger-parser';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { assertSafeUrl, findBlockedDestinationError, type ResolveHostname } from '../fetch/assert-safe-url';
import { decodeText, readBodyCapped } from '../fetch/read-body';
import { createSafeAgent } from '../fetch/safe-connect';
import { MAX_SPEC_BYTES, type OpenApiConfig } from './openapi-schemas';

export type LoadSpecOptions = { allowPrivateNetworks: boolean; resolve?: ResolveHostname; signal: AbortSignal };

/** A dereferenced OpenAPI 3.x or Swagger 2.0 document, and the URL it came from (for relative server URLs). */
export type LoadedSpec = { document: Record<string, any>; sourceUrl: string | null };

/**
 * Fetches (hardened: SSRF checks at resolve and connect time, no redirects, size cap) or takes the pasted
 * document, parses JSON or YAML, and dereferences it with swagger-parser. External `$ref`s are not
 * followed: they would be requests the SSRF rules never saw.
 */
export async function loadSpec(config: OpenApiConfig, options: LoadSpecOptions): Promise<LoadedSpec> {
  let text: string;
  let sourceUrl: string | null = null;
  if (config.specUrl) {
    sourceUrl = config.specUrl;
    text = await fetchSpecText(config.specUrl, options);
  } else if (config.spec.trim()) {
    text = config.spec;
  } else {
    throw new Error('No OpenAPI document: set specUrl or paste the document into spec');
  }
  let parsed: unknown;
  try {
    parsed = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`The document is neither JSON nor YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!parsed || typeof parsed !== 'object' || !('openapi' in parsed || 'swagger' in parsed)) {
    throw new Error('Not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) field');
  }
  try {
    const document = await SwaggerParser.dereference(structuredClone(parsed) as never, { resolve: { external: false }, dereference: { circular: 'ignore' } });
    return { document: document as Record<string, any>, sourceUrl };
  } catch (error) {
    throw new Error(`Invalid OpenAPI document: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function fetchSpecText(url: string, options: LoadSpecOptions): Promise<string> {
  const agent = createSafeAgent({ allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolve, connectTimeout: 10_000 });
  try {
    await assertSafeUrl(url, { allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolve, signal: options.signal });
    const response = await request(url, { method: 'GET', headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5', 'user-agent': 'agentq-openapi/1.0' }, dispatcher: agent, signal: options.signal });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => {});
      throw new Error(`Fetching the document answered HTTP ${response.statusCode}${response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed: use the final URL)' : ''}`);
    }
    const contentEncoding = response.headers['content-encoding'];
    const body = await readBodyCapped(response.body, MAX_SPEC_BYTES, Array.isArray(contentEncoding) ? contentEncoding[0] : contentEncoding);
    if (body.truncated) throw new Error(`The document is larger than ${MAX_SPEC_BYTES} bytes`);
    const contentType = response.headers['content-type'];
    return decodeText(body.bytes, Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? ''));
  } catch (error) {
    const blocked = findBlockedDestinationError(error);
    if (blocked) throw new Error(`Blocked destination: ${blocked.reason}. The document must be on a public http(s) address unless FETCH_ALLOW_PRIVATE_NETWORKS is set.`);
    throw error;
  } finally {
    await agent.destroy().catch(() => {});
  }
}
