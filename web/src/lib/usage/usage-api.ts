/** Tokens spent by chat runs: your own (`GET /api/usage`) and everyone's (`GET /api/admin/usage`, admins). */
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption, type RouteOutput } from '../api-routes.ts';
import { dayWindow } from '../day-window.ts';
import { throwPageError } from '../page-error.ts';

export type UsageReport = RouteOutput<'/usage', '$get'>;
export type AdminUsageReport = RouteOutput<'/admin/usage', '$get'>;
export type UsageSums = UsageReport['totals'];
export type UsageDay = UsageReport['byDay'][number];

/** The days a page shows unless told (today and the 29 before), and the longest window the API takes. */
export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_MAX_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The days a usage page shows (`YYYY-MM-DD`, inclusive, the browser's calendar), or why it cannot. */
export type UsageDays = { from: string; to: string; problem?: 'backwards' | 'tooLong' };

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The day `date` is on the browser's calendar, `plusDays` later. */
function dayOf(date: Date, plusDays = 0): string {
  const shifted = new Date(date.getFullYear(), date.getMonth(), date.getDate() + plusDays);
  return `${shifted.getFullYear()}-${String(shifted.getMonth() + 1).padStart(2, '0')}-${String(shifted.getDate()).padStart(2, '0')}`;
}

function dateOf(day: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date);
}

const isDay = (day: string | null | undefined): day is string => !!day && DAY_PATTERN.test(day) && dayOf(dateOf(day)) === day;

/** The days asked for in the URL; the last 30 up to today where they are missing (or not days). */
export function usageDays(from: string | null | undefined, to: string | null | undefined, today = new Date()): UsageDays {
  const last = isDay(to) ? to : dayOf(today);
  const first = isDay(from) ? from : dayOf(dateOf(last), 1 - USAGE_DEFAULT_DAYS);
  if (first > last) return { from: first, to: last, problem: 'backwards' };
  const { since, until } = dayWindow(first, last);
  // Measured as the API measures it, in hours: a daylight-saving change can add one.
  if (new Date(until!).getTime() - new Date(since!).getTime() > USAGE_MAX_DAYS * DAY_MS) return { from: first, to: last, problem: 'tooLong' };
  return { from: first, to: last };
}

/** Every day from `from` to `to`, both included: the chart's bars, days without runs too. */
export function calendarDays(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from, step = 0; day <= to; day = dayOf(dateOf(from), ++step)) days.push(day);
  return days;
}

/** The API's query for the days: their instants, counted in the browser's time zone. */
function usageQuery({ from, to }: UsageDays): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return queryString({ ...dayWindow(from, to), tz });
}

/** Your own chat runs' tokens on those days, by day and by model. */
export function myUsage(days: UsageDays, options: FetchOption = {}): Promise<UsageReport> {
  return apiFetch(`/api/usage${usageQuery(days)}`, options);
}

/** Everyone's chat runs' tokens on those days, by day, by model and by user (admins). */
export function everyonesUsage(days: UsageDays, options: FetchOption = {}): Promise<AdminUsageReport> {
  return apiFetch(`/api/admin/usage${usageQuery(days)}`, options);
}

/** A usage page's `load`: the days from its URL and, unless they cannot be counted, their report. */
export async function loadUsage<Report>(url: URL, read: (days: UsageDays) => Promise<Report>) {
  const days = usageDays(url.searchParams.get('from'), url.searchParams.get('to'));
  const chosen = url.searchParams.has('from') || url.searchParams.has('to');
  try {
    return { days, chosen, report: days.problem ? null : await read(days) };
  } catch (caught) {
    throwPageError(caught, url);
  }
}
