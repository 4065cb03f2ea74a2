import { getChatOptions } from '#lib/chat/sessions-api.ts';
import { listSchedules } from '#lib/schedules/schedules-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:schedules');
  try {
    const [schedules, options] = await Promise.all([listSchedules({ fetch }), getChatOptions({ fetch })]);
    return { schedules, agents: options.agents, models: options.models };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
