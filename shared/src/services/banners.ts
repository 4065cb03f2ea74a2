import { and, desc, eq, inArray } from 'drizzle-orm';
import {
  type ActiveBannerView,
  type CreateBannerInput,
  createBannerInputSchema,
  endsAfterStart,
  type UpdateBannerInput,
  updateBannerInputSchema,
} from '../api-types/banners';
import type { Database } from '../db/client';
import { bannerDismissals, banners } from '../db/schema';
import { newId } from '../ids';
import { cachedConfig, invalidateConfig } from './config-cache';
import { InvalidInputError, NotFoundError } from './errors';

export { createBannerInputSchema, updateBannerInputSchema, type CreateBannerInput, type UpdateBannerInput } from '../api-types/banners';

/**
 * Announcement banners: admins post them, every signed-in user sees the enabled ones inside their
 * window at the top of the app and may close the dismissible ones (remembered per user, per text).
 * The enabled ones are one cached snapshot (scope `banners`), read once per page load, never on a send.
 */

export type Banner = typeof banners.$inferSelect;
/** A banner as the admin sees it; the revision is internal (it only decides which dismissals still hold). */
export type BannerDetail = Omit<Banner, 'revision'>;
/** A banner as a user sees it. */
export type ActiveBanner = ActiveBannerView;

const detailOf = ({ revision: _revision, ...banner }: Banner): BannerDetail => banner;

/** Every banner, the newest first (Admin → Banners). */
export async function listBanners(db: Database): Promise<BannerDetail[]> {
  const rows = await db.select().from(banners).orderBy(desc(banners.createdAt), desc(banners.id));
  return rows.map(detailOf);
}

async function findBanner(db: Database, id: string): Promise<Banner> {
  const [row] = await db.select().from(banners).where(eq(banners.id, id));
  if (!row) throw new NotFoundError('Banner', id);
  return row;
}

/** One banner. @throws {NotFoundError} */
export async function getBanner(db: Database, id: string): Promise<BannerDetail> {
  return detailOf(await findBanner(db, id));
}

const toDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

export async function createBanner(db: Database, input: CreateBannerInput): Promise<BannerDetail> {
  const fields = createBannerInputSchema.parse(input);
  const [row] = await db
    .insert(banners)
    .values({ id: newId('banner'), ...fields, startsAt: toDate(fields.startsAt), endsAt: toDate(fields.endsAt) })
    .returning();
  await invalidateConfig(db, ['banners']);
  return detailOf(row!);
}

/**
 * Changes any of a banner's fields. A new text bumps its revision, so users who closed the old text
 * see the new one. @throws {NotFoundError} @throws {InvalidInputError} when the window would end before it starts
 */
export async function updateBanner(db: Database, id: string, input: UpdateBannerInput): Promise<BannerDetail> {
  const fields = updateBannerInputSchema.parse(input);
  const current = await findBanner(db, id);
  const startsAt = toDate(fields.startsAt);
  const endsAt = toDate(fields.endsAt);
  if (!endsAfterStart({ startsAt: startsAt === undefined ? current.startsAt : startsAt, endsAt: endsAt === undefined ? current.endsAt : endsAt })) {
    throw new InvalidInputError('End the banner after it starts', [{ path: ['endsAt'], message: 'End the banner after it starts' }]);
  }
  const textChanged = fields.text !== undefined && fields.text !== current.text;
  const [row] = await db
    .update(banners)
    .set({ ...fields, startsAt, endsAt, ...(textChanged ? { revision: current.revision + 1 } : {}) })
    .where(eq(banners.id, id))
    .returning();
  if (!row) throw new NotFoundError('Banner', id);
  await invalidateConfig(db, ['banners']);
  return detailOf(row);
}

/** Deletes a banner (and who dismissed it); answers what it was, for the audit log. @throws {NotFoundError} */
export async function deleteBanner(db: Database, id: string): Promise<BannerDetail> {
  const [row] = await db.delete(banners).where(eq(banners.id, id)).returning();
  if (!row) throw new NotFoundError('Banner', id);
  await invalidateConfig(db, ['banners']);
  return detailOf(row);
}

/** The enabled banners, newest first, from this process's config cache when one is attached. */
function enabledBanners(db: Database): Promise<readonly Banner[]> {
  return cachedConfig(db, 'banners', () => db.select().from(banners).where(eq(banners.enabled, true)).orderBy(desc(banners.createdAt), desc(banners.id)));
}

/** Whether an enabled banner is inside its window at `now` (start inclusive, end exclusive). */
export function isShowing(banner: Pick<Banner, 'startsAt' | 'endsAt'>, now: Date): boolean {
  return (!banner.startsAt || banner.startsAt <= now) && (!banner.endsAt || now < banner.endsAt);
}

/**
 * The banners `userId` sees now, newest first: enabled, inside their window, and not dismissed at
 * their current text. Asks the database only when a dismissible banner is showing.
 */
export async function activeBannersFor(db: Database, userId: string, now = new Date()): Promise<ActiveBanner[]> {
  const showing = (await enabledBanners(db)).filter((banner) => isShowing(banner, now));
  const dismissibleIds = showing.filter((banner) => banner.dismissible).map((banner) => banner.id);
  const dismissed = new Map<string, number>();
  if (dismissibleIds.length > 0) {
    const rows = await db
      .select({ bannerId: bannerDismissals.bannerId, revision: bannerDismissals.revision })
      .from(bannerDismissals)
      .where(and(eq(bannerDismissals.userId, userId), inArray(bannerDismissals.bannerId, dismissibleIds)));
    for (const row of rows) dismissed.set(row.bannerId, row.revision);
  }
  return showing
    .filter((banner) => !banner.dismissible || dismissed.get(banner.id) !== banner.revision)
    .map(({ id, kind, text, dismissible }) => ({ id, kind, text, dismissible }));
}

/**
 * Closes a banner for `userId` (on every device) until its text changes. A banner the user cannot see
 * now is unknown to them (404); one that is not dismissible is refused (400).
 */
export async function dismissBanner(db: Database, userId: string, id: string, now = new Date()): Promise<void> {
  // Read fresh rather than cached: the dismissal must record the revision the text has now.
  const [banner] = await db.select().from(banners).where(eq(banners.id, id));
  if (!banner || !banner.enabled || !isShowing(banner, now)) throw new NotFoundError('Banner', id);
  if (!banner.dismissible) throw new InvalidInputError('This banner cannot be dismissed', [{ path: ['id'], message: 'Not dismissible' }]);
  await db
    .insert(bannerDismissals)
    .values({ userId, bannerId: id, revision: banner.revision, dismissedAt: now })
    .onConflictDoUpdate({ target: [bannerDismissals.userId, bannerDismissals.bannerId], set: { revision: banner.revision, dismissedAt: now } });
}
