import type { MessageKey } from '../i18n/i18n.svelte.ts';
import type { BannerKind } from './banners-api.ts';

/** Each kind's name, for screen readers on the banner and for the admin's picker. */
export const BANNER_KIND_LABELS: Record<BannerKind, MessageKey> = {
  info: 'banners.kindInfo',
  success: 'banners.kindSuccess',
  warning: 'banners.kindWarning',
  error: 'banners.kindError',
};
