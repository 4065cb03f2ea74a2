import type { ToolResult } from './define-tool-type';

/** Every string inside `value` (arrays and plain objects walked) with `hide` applied; other values as they are. */
function hideStrings(value: unknown, hide: (text: string) => string): unknown {
  if (typeof value === 'string') return hide(value);
  if (Array.isArray(value)) return value.map((item) => hideStrings(item, hide));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, hideStrings(item, hide)]));
  }
  return value;
}

/**
 * The result with every occurrence of `secret` (as sent, or URL-encoded) replaced by `***` in its
 * texts (data, error and metadata, however deep): an API key a provider or an API echoes back never
 * reaches the model or the logs. Only strings are touched, so a short secret cannot break the result's shape.
 */
export function maskSecret(result: ToolResult, secret: string | undefined): ToolResult {
  if (!secret) return result;
  const variants = [...new Set([secret, encodeURIComponent(secret)])];
  const hide = (text: string) => variants.reduce((masked, variant) => masked.split(variant).join('***'), text);
  return hideStrings(result, hide) as ToolResult;
}
