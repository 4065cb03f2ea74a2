/**
 * Response types of the routes that assemble their answer in the API itself (session detail,
 * chat options, the operators' dashboard), read off the Hono app's type: `c.json` has already
 * turned dates into strings there. Resources the services define come from `@agentq/shared/api-types`.
 * Type-only: nothing from the API reaches the bundle.
 */
import type { AppType } from '@agentq/api';
import type { ExtractSchema } from 'hono/types';

type Routes = ExtractSchema<AppType>;

/** The JSON `Method` on `Path` (relative to `/api`) answers with on success. */
export type RouteOutput<Path extends keyof Routes, Method extends keyof Routes[Path]> = Routes[Path][Method] extends { output: infer Output }
  ? Output
  : never;

/** `encodeURIComponent` for an id in a path. */
export const segment = (id: string) => encodeURIComponent(id);

/** A query string from the defined, non-empty values (`?a=1&b=x`, or `''`). */
export function queryString(values: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  return search.size > 0 ? `?${search}` : '';
}

/** The `fetch` of a `load` event, when there is one. */
export type FetchOption = { fetch?: typeof fetch };
