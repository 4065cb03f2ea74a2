import { createApiProxy } from '#lib/server/api-proxy.ts';

// Production `web` process: API_URL points at the API process and /api, /metrics and
// /admin/queues are forwarded there. Unset: the all-in-one front server routes them first.
export const handle = createApiProxy(process.env.API_URL);
