/** Announcement banners: the ones you see (`/api/banners`) and, for admins, all of them (`/api/admin/banners`). */
import type { ActiveBannerView, BannerView, CreateBannerInput, ListPage, UpdateBannerInput } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export { BANNER_KINDS, BANNER_TEXT_MAX, type ActiveBannerView, type BannerKind, type BannerView } from '@agentq/shared/api-types';

/** The banners to show the signed-in user now. */
export async function listActiveBanners(options: FetchOption = {}): Promise<ActiveBannerView[]> {
  return (await apiFetch<ListPage<ActiveBannerView>>('/api/banners', options)).items;
}

/** Closes a banner for this account, on every device, until its text changes. */
export async function dismissBanner(id: string): Promise<void> {
  await apiFetch(`/api/banners/${segment(id)}/dismiss`, { method: 'POST' });
}

export async function listBanners(options: FetchOption = {}): Promise<BannerView[]> {
  return (await apiFetch<ListPage<BannerView>>('/api/admin/banners', options)).items;
}

export function createBanner(input: CreateBannerInput): Promise<BannerView> {
  return apiFetch('/api/admin/banners', { method: 'POST', json: input });
}

export function updateBanner(id: string, input: UpdateBannerInput): Promise<BannerView> {
  return apiFetch(`/api/admin/banners/${segment(id)}`, { method: 'PATCH', json: input });
}

export async function deleteBanner(id: string): Promise<void> {
  await apiFetch(`/api/admin/banners/${segment(id)}`, { method: 'DELETE' });
}
