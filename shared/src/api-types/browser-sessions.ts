/**
 * "Where you're signed in": a user's browser sessions on the wire (GET /api/auth/sessions). zod
 * only, so the web app may import it. Never carries the cookie or its hash.
 */

/** What kind of device a User-Agent says it is (bowser's platform types). */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet', 'tv', 'bot'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** The device parsed from a session's User-Agent; each part null when the header did not say. */
export type DeviceView = {
  /** e.g. "Chrome", "Safari", "Firefox". */
  browser: string | null;
  /** The browser's major version, e.g. "131". */
  browserVersion: string | null;
  /** e.g. "macOS", "Windows", "iOS", "Android", "Linux". */
  os: string | null;
  type: DeviceType | null;
};

/** One signed-in browser session of the caller. */
export type BrowserSessionView = {
  id: string;
  device: DeviceView;
  /** The User-Agent it signed in with (up to 512 characters); null when unknown. */
  userAgent: string | null;
  /** The client address it signed in from; null when unknown. */
  clientAddress: string | null;
  signedInAt: string;
  /** Approximate (written at most every few minutes); the sign-in time until then. */
  lastSeenAt: string;
  expiresAt: string;
  /** The session this request came with ("This device"). */
  current: boolean;
};

/** POST /api/auth/sessions/revoke-others answer. */
export type RevokedSessions = { revoked: number };
