import { z } from 'zod';

/**
 * Announcement banners on the wire (Admin → Banners): the request schemas the API validates with and
 * the response shapes (dates as ISO strings). zod only, so the web app may import it.
 */

/** How a banner looks; `error` is announced as an alert, the others as a status. */
export const BANNER_KINDS = ['info', 'success', 'warning', 'error'] as const;
export type BannerKind = (typeof BANNER_KINDS)[number];

/** The longest banner text, in characters of its Markdown. */
export const BANNER_TEXT_MAX = 500;

const kind = z.enum(BANNER_KINDS, { error: `Choose a kind: ${BANNER_KINDS.join(', ')}` });
const text = z
  .string({ error: 'Write the announcement' })
  .trim()
  .min(1, 'Write the announcement')
  .max(BANNER_TEXT_MAX, `Keep the text under ${BANNER_TEXT_MAX} characters`);
const when = z.iso.datetime({ offset: true, message: 'Give a date and time such as 2026-12-01T09:00:00Z, or null' }).nullable();
const flag = (what: string) => z.boolean({ error: `Give true or false (${what})` });

/** A window that ends after it starts (either end may be open). */
export function endsAfterStart(window: { startsAt?: string | Date | null; endsAt?: string | Date | null }): boolean {
  if (!window.startsAt || !window.endsAt) return true;
  return new Date(window.endsAt).getTime() > new Date(window.startsAt).getTime();
}
const END_BEFORE_START = { path: ['endsAt'], message: 'End the banner after it starts' };

/** POST /api/admin/banners: only `text` is required; shown at once and until deleted unless a window is given. */
export const createBannerInputSchema = z
  .object({
    kind: kind.default('info'),
    text,
    dismissible: flag('dismissible').default(true),
    startsAt: when.default(null),
    endsAt: when.default(null),
    enabled: flag('enabled').default(true),
  })
  .refine(endsAfterStart, END_BEFORE_START);
export type CreateBannerInput = z.input<typeof createBannerInputSchema>;

/** PATCH /api/admin/banners/:id: any of the fields; a changed text shows the banner again to those who dismissed it. */
export const updateBannerInputSchema = z
  .object({ kind, text, dismissible: flag('dismissible'), startsAt: when, endsAt: when, enabled: flag('enabled') })
  .partial()
  .refine((input) => Object.values(input).some((value) => value !== undefined), 'Send at least one of kind, text, dismissible, startsAt, endsAt, enabled')
  .refine(endsAfterStart, END_BEFORE_START);
export type UpdateBannerInput = z.input<typeof updateBannerInputSchema>;

/** A banner as Admin → Banners lists it. */
export type BannerView = {
  id: string;
  kind: BannerKind;
  text: string;
  dismissible: boolean;
  startsAt: string | null;
  endsAt: string | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
};

/** A banner a signed-in user sees (GET /api/banners): only what showing it needs. */
export type ActiveBannerView = Pick<BannerView, 'id' | 'kind' | 'text' | 'dismissible'>;
