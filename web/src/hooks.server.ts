import { sequence } from '@sveltejs/kit/hooks';
import { createApiProxy } from '#lib/server/api-proxy.ts';
import { themeHandle } from '#lib/theme/theme-handle.ts';

// Production `web` process: API_URL points at the API process and /api, /metrics and
// /admin/queues are forwarded there. Unset: the all-in-one front server routes them first.
// Pages are rendered in the reader's colour theme.
export const handle = sequence(createApiProxy(process.env.API_URL), themeHandle);
