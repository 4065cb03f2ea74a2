/**
 * The chat list's sections by last activity, as ChatGPT and Open WebUI show them: Today,
 * Yesterday, the previous 7 and 30 days, then one section per month. Days are the reader's local
 * days. The list comes newest first, so each section is a run of it and order is kept.
 */
export type ActivityPeriod = { kind: 'today' | 'yesterday' | 'week' | 'month' } | { kind: 'calendar-month'; year: number; month: number };

export type ActivityGroup<T> = { key: string; period: ActivityPeriod; items: T[] };

const DAY_MS = 24 * 60 * 60 * 1000;

function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** The period `at` falls in, seen from `now`. */
export function activityPeriod(at: Date, now: Date): ActivityPeriod {
  const today = startOfDay(now);
  const day = startOfDay(at);
  // Whole local days between them (a daylight-saving day is 23 or 25 hours long).
  const daysAgo = Math.round((today - day) / DAY_MS);
  if (daysAgo <= 0) return { kind: 'today' };
  if (daysAgo === 1) return { kind: 'yesterday' };
  if (daysAgo <= 7) return { kind: 'week' };
  if (daysAgo <= 30) return { kind: 'month' };
  return { kind: 'calendar-month', year: at.getFullYear(), month: at.getMonth() };
}

function periodKey(period: ActivityPeriod): string {
  return period.kind === 'calendar-month' ? `${period.year}-${period.month + 1}` : period.kind;
}

/** `items` (newest first) in sections by `updatedAt`; an item whose time cannot be read joins the section before it. */
export function groupByActivity<T extends { updatedAt: string }>(items: readonly T[], now: Date): ActivityGroup<T>[] {
  const groups: ActivityGroup<T>[] = [];
  for (const item of items) {
    const at = new Date(item.updatedAt);
    const period = Number.isNaN(at.getTime()) ? (groups.at(-1)?.period ?? { kind: 'today' }) : activityPeriod(at, now);
    const key = periodKey(period);
    const last = groups.at(-1);
    if (last?.key === key) last.items.push(item);
    else groups.push({ key, period, items: [item] });
  }
  return groups;
}
