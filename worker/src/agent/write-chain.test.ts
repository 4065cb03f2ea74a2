import { describe, expect, it } from 'vitest';
import { createWriteChain } from './write-chain';

const later = <T>(ms: number, value?: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value as T), ms));

describe('createWriteChain', () => {
  it('starts each write after the ones before it have committed, and is pending until the last has', async () => {
    const chain = createWriteChain();
    const order: string[] = [];
    expect(chain.pending).toBe(false);
    chain.add(async () => {
      await later(30);
      order.push('checkpoint 1');
    });
    // A write already under way (a call's log row) is waited for in its place, however fast it is.
    chain.addStarted(later(1).then(() => void order.push('log row')));
    chain.add(async () => void order.push('checkpoint 2'));
    expect(chain.pending).toBe(true);
    await chain.settled();
    expect(order).toEqual(['log row', 'checkpoint 1', 'checkpoint 2']);
    expect(chain.pending).toBe(false);
  });

  it('keeps the first failure: settled rejects with it and no write after it starts', async () => {
    const chain = createWriteChain();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let started = false;
      chain.add(() => later(20));
      // Fails before the write ahead of it is done: not an unhandled rejection meanwhile.
      chain.addStarted(Promise.reject(new Error('database down')));
      chain.add(async () => void (started = true));
      await later(40);
      await expect(chain.settled()).rejects.toThrow('database down');
      expect(started).toBe(false);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
