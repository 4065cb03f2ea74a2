import { error } from '@sveltejs/kit';
import type { LayoutLoad } from './$types';

// Hiding the nav entry is not enough: a user who types /admin sees a 403 instead of the page.
// The API enforces the same rule on every admin route.
export const load: LayoutLoad = async ({ parent }) => {
  const { user } = await parent();
  if (user.role !== 'admin') error(403, 'This area is for administrators only.');
};
