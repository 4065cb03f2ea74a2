import { describe, expect, it } from 'vitest';
import { importBatches } from './import-chat-file.ts';

describe('importBatches', () => {
  const chat = (index: number, padding = 0) => ({ title: `Chat ${index}`, mapping: {}, padding: 'x'.repeat(padding) });

  it('keeps the file order, at most `chats` per request', () => {
    const batches = importBatches(Array.from({ length: 250 }, (_, index) => chat(index)), { chats: 100, bytes: 1_000_000 });
    expect(batches.map((batch) => [batch.start, batch.texts.length])).toEqual([
      [0, 100],
      [100, 100],
      [200, 50],
    ]);
    expect(JSON.parse(`[${batches[1]!.texts.join(',')}]`)[0].title).toBe('Chat 100');
  });

  it('starts a new request before the bytes would pass the limit, and sends a chat bigger than the limit alone', () => {
    const chats = [chat(0, 400), chat(1, 400), chat(2, 5_000), chat(3, 10)];
    const batches = importBatches(chats, { chats: 100, bytes: 1_000 });
    expect(batches.map((batch) => [batch.start, batch.texts.length])).toEqual([
      [0, 2],
      [2, 1],
      [3, 1],
    ]);
    for (const batch of batches.filter((batch) => batch.texts.length > 1)) expect(new TextEncoder().encode(`[${batch.texts.join(',')}]`).length).toBeLessThanOrEqual(1_000);
  });

  it('counts bytes, not characters, for text in other scripts', () => {
    const wide = { title: '长'.repeat(200) };
    // 200 Chinese characters are 600 bytes: two do not fit in 1,000.
    expect(importBatches([wide, wide], { chats: 100, bytes: 1_000 }).length).toBe(2);
  });
});
