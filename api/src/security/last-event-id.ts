import { ApiError } from '../errors';

/**
 * The sequence number a reconnecting SSE client sends (`Last-Event-ID`, or `?lastEventId=`):
 * absent → 0 (from the start); a decimal integer we could have issued (0 … 2^53−1, the ids we
 * write are `seq`) → that number; anything else → 400, before it reaches Redis as a stream id.
 */
export function parseLastEventId(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const seq = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new ApiError(400, 'invalid_last_event_id', 'Last-Event-ID must be the id of an event this stream sent (a whole number)');
  }
  return seq;
}
