// The web app is an SPA shell: every page loads its data in the browser from /api, so the
// session cookie goes with each call and the server never renders user data.
export const ssr = false;
