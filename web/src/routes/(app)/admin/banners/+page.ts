import { listBanners } from '#lib/banners/banners-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  // The same key as the app layout's banners: a change here refreshes the list and the strip on top.
  depends('app:banners');
  try {
    return { banners: await listBanners({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
