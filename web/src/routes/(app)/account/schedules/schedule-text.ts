import { intlLocale, t } from '#lib/i18n/i18n.svelte.ts';
import { presetOf } from '#lib/schedules/schedule-presets.ts';

/** A weekday's name in the UI language (0 = Sunday, as cron counts). */
export function weekdayName(weekday: number): string {
  // 2023-01-01 was a Sunday.
  return new Intl.DateTimeFormat(intlLocale(), { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2023, 0, 1 + weekday)));
}

/** "Every weekday at 09:00" for a preset's cron; a custom cron reads as itself. */
export function describeCron(cron: string): string {
  const preset = presetOf(cron);
  switch (preset.kind) {
    case 'daily':
      return t('schedules.presetDaily', { time: preset.time });
    case 'weekdays':
      return t('schedules.presetWeekdays', { time: preset.time });
    case 'weekly':
      return t('schedules.presetWeekly', { day: weekdayName(preset.weekday), time: preset.time });
    case 'hourly':
      return t('schedules.presetHourly');
    case 'custom':
      return cron;
  }
}

