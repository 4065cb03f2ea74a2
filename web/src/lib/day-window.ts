/** A range of days picked on a page (`YYYY-MM-DD`, the user's own calendar) as the API's window of instants. */

/** `since` inclusive, `until` exclusive, ISO 8601. */
export type DayWindow = { since?: string | undefined; until?: string | undefined };

/** A day of the page's range as the API's window: from its start, or up to the end of it. */
export function dayWindow(from: string | null | undefined, to: string | null | undefined): DayWindow {
  const startOf = (day: string | null | undefined, plusDays = 0) => {
    if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
    const [year, month, date] = day.split('-').map(Number) as [number, number, number];
    const start = new Date(year, month - 1, date + plusDays);
    return Number.isNaN(start.getTime()) ? undefined : start.toISOString();
  };
  return { since: startOf(from), until: startOf(to, 1) };
}
