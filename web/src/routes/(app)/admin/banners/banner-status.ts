import type { BannerView } from '#lib/banners/banners-api.ts';

/** Whether users see the banner now, as the API decides it (start inclusive, end exclusive). */
export type BannerStatus = 'off' | 'scheduled' | 'showing' | 'ended';

export function bannerStatus(banner: Pick<BannerView, 'enabled' | 'startsAt' | 'endsAt'>, now = Date.now()): BannerStatus {
  if (!banner.enabled) return 'off';
  if (banner.startsAt && Date.parse(banner.startsAt) > now) return 'scheduled';
  if (banner.endsAt && Date.parse(banner.endsAt) <= now) return 'ended';
  return 'showing';
}
