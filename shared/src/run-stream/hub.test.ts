import { afterAll, describe, expect, it } from 'vitest';
import { createSubscriberRedis, createWorkerRedis, waitForRedis } from '../redis';
import { testRedisUrl } from '../testing';
import { newId } from '../ids';
import type { RunEvent } from '../events';
import { RunEventHub } from './hub';
import { runStreamKeys } from './keys';

const publisher = createWorkerRedis(testRedisUrl());
const subscriber = createSubscriberRedis(testRedisUrl());
const prefix = `hub-test-${process.pid}`;
afterAll(() => {
  publisher.disconnect();
  subscriber.disconnect();
});

describe('RunEventHub', () => {
  it("resolves a second follower's subscribe only once the channel's SUBSCRIBE holds, so an event published right after reaches it", async () => {
    await waitForRedis(subscriber);
    const hub = new RunEventHub(subscriber, prefix);
    // The first follower's SUBSCRIBE takes a while to reach Redis (a busy connection).
    const subscribe = subscriber.subscribe.bind(subscriber);
    (subscriber as { subscribe: unknown }).subscribe = async (...channels: string[]) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return subscribe(...channels);
    };
    try {
      const runId = newId('run');
      const first: RunEvent[] = [];
      const second: RunEvent[] = [];
      const firstSubscribed = hub.subscribe(runId, (events) => first.push(...events));
      const release = await hub.subscribe(runId, (events) => second.push(...events));
      // The follower reads the stream now and counts on live delivery for everything after it.
      const event: RunEvent = { runId, seq: 1, chunk: { type: 'start', messageId: runId } };
      await publisher.publish(runStreamKeys(prefix, runId).channel, JSON.stringify([event]));
      await expect.poll(() => second.length, { timeout: 2000 }).toBe(1);
      expect(second).toEqual([event]);
      await (await firstSubscribed)();
      await release();
      expect(hub.activeChannels).toBe(0);
    } finally {
      (subscriber as { subscribe: unknown }).subscribe = subscribe;
    }
  });
});
