/**
 * The schedule form's presets and the cron each stands for: every day, every weekday or every week at
 * HH:MM, every hour, or a custom cron. `presetOf` reads a cron back into its preset (else custom),
 * so editing a schedule opens on the preset it was made with.
 */
export type PresetKind = 'daily' | 'weekdays' | 'weekly' | 'hourly' | 'custom';
export type Preset = { kind: PresetKind; time: string; weekday: number; cron: string };

export const PRESET_KINDS: readonly PresetKind[] = ['daily', 'weekdays', 'weekly', 'hourly', 'custom'];

function hoursMinutes(time: string): [hours: number, minutes: number] {
  const [hours = '9', minutes = '0'] = time.split(':');
  return [Number(hours) || 0, Number(minutes) || 0];
}

/** The cron a preset produces (custom: its own). */
export function cronOf(preset: Preset): string {
  const [hours, minutes] = hoursMinutes(preset.time);
  switch (preset.kind) {
    case 'daily':
      return `${minutes} ${hours} * * *`;
    case 'weekdays':
      return `${minutes} ${hours} * * 1-5`;
    case 'weekly':
      return `${minutes} ${hours} * * ${preset.weekday}`;
    case 'hourly':
      return '0 * * * *';
    case 'custom':
      return preset.cron.trim();
  }
}

const pad = (value: string) => value.padStart(2, '0');

/** The preset a cron was made with, or `custom`. */
export function presetOf(cron: string): Preset {
  const fallback: Preset = { kind: 'custom', time: '09:00', weekday: 1, cron };
  if (cron.trim() === '0 * * * *') return { ...fallback, kind: 'hourly' };
  const match = /^(\d{1,2}) (\d{1,2}) \* \* (\*|1-5|[0-6])$/.exec(cron.trim());
  if (!match) return fallback;
  const [, minutes, hours, days] = match as unknown as [string, string, string, string];
  if (Number(minutes) > 59 || Number(hours) > 23) return fallback;
  const time = `${pad(hours)}:${pad(minutes)}`;
  if (days === '*') return { ...fallback, kind: 'daily', time };
  if (days === '1-5') return { ...fallback, kind: 'weekdays', time };
  return { ...fallback, kind: 'weekly', time, weekday: Number(days) };
}
