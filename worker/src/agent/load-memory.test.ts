import { users, type DbHandle } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createDocument } from '@agentq/shared/services';
import { openTestDb } from '@agentq/shared/testing';
import { tokenCounter } from '@agentq/shared/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withMemory } from './load-memory';

let database: DbHandle;
let userId: string;
let strangerId: string;

async function newUser() {
  const id = newId('user');
  await database.db.insert(users).values({ id, email: `${id}@test.local`, name: 'memory', passwordHash: 'x' });
  return id;
}

beforeAll(async () => {
  database = await openTestDb();
  userId = await newUser();
  strangerId = await newUser();
  await createDocument(database.db, { userId: strangerId }, { type: 'memory', title: 'Stranger', content: 'The stranger likes olives.' });
  await createDocument(database.db, { userId }, { type: 'document', title: 'Report', content: 'A deliverable, not a memory.' });
  await createDocument(database.db, { userId }, { type: 'memory', title: 'Old note', content: `Old: ${'filler words '.repeat(400)}` });
  await createDocument(database.db, { userId }, { type: 'memory', title: 'Favourite colour', content: 'My favourite colour is teal. 我最喜欢的颜色是青色。' });
});
afterAll(() => database?.close());

describe('withMemory', () => {
  it('appends the newest memories to the system prompt, only the user’s own and only memories', async () => {
    const prompt = await withMemory(database.db, { loadMemory: true, memoryTokenBudget: 4000 }, userId, 'Be brief.');
    expect(prompt!.startsWith('Be brief.\n\n## What you remember about this user')).toBe(true);
    expect(prompt).toContain('My favourite colour is teal. 我最喜欢的颜色是青色。');
    expect(prompt!.indexOf('Favourite colour')).toBeLessThan(prompt!.indexOf('Old note'));
    expect(prompt).not.toContain('olives');
    expect(prompt).not.toContain('A deliverable');
  });

  it('stays within the token budget, cutting the memory that does not fit', async () => {
    const tokens = await tokenCounter();
    const prompt = (await withMemory(database.db, { loadMemory: true, memoryTokenBudget: 200 }, userId, undefined))!;
    expect(tokens.count(prompt)).toBeLessThanOrEqual(200 + 20);
    expect(prompt).toContain('teal');
    expect(prompt).toContain('[cut to fit the memory budget');
  });

  it('leaves the prompt alone when the agent does not load memory or the user has none', async () => {
    expect(await withMemory(database.db, { loadMemory: false, memoryTokenBudget: 4000 }, userId, 'Be brief.')).toBe('Be brief.');
    expect(await withMemory(database.db, undefined, userId, undefined)).toBeUndefined();
    const empty = await newUser();
    expect(await withMemory(database.db, { loadMemory: true, memoryTokenBudget: 4000 }, empty, 'Hi')).toBe('Hi');
  });
});
