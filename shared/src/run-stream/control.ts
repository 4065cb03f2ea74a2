import type { Redis } from 'ioredis';
import { runControlChannel } from './keys';

/** Asks whichever worker holds the run to abort it (see worker RunControl). */
export async function publishCancel(redis: Redis, prefix: string, runId: string): Promise<void> {
  await redis.publish(runControlChannel(prefix), `cancel ${runId}`);
}
