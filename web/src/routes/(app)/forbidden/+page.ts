import { error } from '@sveltejs/kit';
import type { PageLoad } from './$types';

// Where the API sends a signed-in non-admin's browser that opened an admin page it serves itself
// (the queue board): the same styled 403 as the app's own admin pages.
export const load: PageLoad = () => {
  error(403, 'This area is for administrators only.');
};
