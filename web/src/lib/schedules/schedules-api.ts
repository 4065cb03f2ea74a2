/** The user's scheduled prompts (`/api/schedules`): list, create, change, delete, run now. */
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type Schedule = RouteOutput<'/schedules', '$post'>;
export type ScheduleTarget = 'new-chat' | 'same-chat';
export type ScheduleInput = {
  name: string;
  prompt: string;
  agentId: string | null;
  cron: string;
  timezone: string;
  target: ScheduleTarget;
  enabled?: boolean;
};

export async function listSchedules(options: FetchOption = {}): Promise<Schedule[]> {
  return (await apiFetch<{ items: Schedule[] }>('/api/schedules', options)).items;
}

export function createSchedule(input: ScheduleInput): Promise<Schedule> {
  return apiFetch('/api/schedules', { method: 'POST', json: input });
}

export function updateSchedule(id: string, input: Partial<ScheduleInput>): Promise<Schedule> {
  return apiFetch(`/api/schedules/${segment(id)}`, { method: 'PATCH', json: input });
}

export async function deleteSchedule(id: string): Promise<void> {
  await apiFetch(`/api/schedules/${segment(id)}`, { method: 'DELETE' });
}

/** Fires the schedule once now: the run and the chat it answers in. */
export function runScheduleNow(id: string): Promise<{ runId: string; sessionId: string }> {
  return apiFetch(`/api/schedules/${segment(id)}/run`, { method: 'POST' });
}
