import { listWebhooks } from '#lib/webhooks/webhooks-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:webhooks');
  try {
    return { webhooks: await listWebhooks({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
