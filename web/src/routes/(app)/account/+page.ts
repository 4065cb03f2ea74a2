import { getTwoFactor } from '#lib/account/account-api.ts';
import { listSignedInSessions } from '#lib/account/devices-api.ts';
import type { PageLoad } from './$types';

/** The profile page's two-factor section starts from whether it is on, its devices section from the signed-in sessions (the user comes from the app layout). */
export const load: PageLoad = async ({ fetch, depends }) => {
  depends('app:signed-in-sessions');
  return { twoFactor: await getTwoFactor(fetch), sessions: await listSignedInSessions(fetch) };
};
