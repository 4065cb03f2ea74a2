import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client';
import { openEmbeddedTestDb, openTestDb, randomPrefix, testRedisUrl } from '../../testing';
import { findInAgentConfig } from '../agent-config';
import { createAgent, updateAgent } from '../agents';
import { checkRunChoices } from '../chat';
import { startConfigCache, type ConfigCache } from '../config-cache';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../errors';
import { createModel, updateModel } from '../models';
import { createSession, createUser, deleteUser, resolveApiToken, createApiToken, resolveSession } from '../users';
import { inAllowedGroups, mayPickModel, mayUseAgent } from './access';
import { addGroupMember, createGroup, deleteGroup, getGroup, groupIdsOfUser, groupsOfUsers, listGroups, removeGroupMember, updateGroup } from './groups';

const APP_SECRET = 'groups-test-secret-0123456789';
const unique = () => Math.random().toString(36).slice(2, 10);

describe('who may use a model or an agent', () => {
  const open = { groupIds: [] as string[] };
  const finance = { groupIds: ['grp_finance'] };
  const financeOrResearch = { groupIds: ['grp_finance', 'grp_research'] };

  it('no group limit: everyone; a limit: members of one of its groups; admins always', () => {
    expect(inAllowedGroups(open, {})).toBe(true);
    expect(inAllowedGroups(finance, {})).toBe(false);
    expect(inAllowedGroups(finance, { groupIds: ['grp_research'] })).toBe(false);
    expect(inAllowedGroups(finance, { groupIds: ['grp_research', 'grp_finance'] })).toBe(true);
    expect(inAllowedGroups(financeOrResearch, { groupIds: ['grp_research'] })).toBe(true);
    expect(inAllowedGroups(finance, { isAdmin: true })).toBe(true);
    expect(mayUseAgent(finance, { groupIds: ['grp_finance'] })).toBe(true);
    expect(mayUseAgent(finance, { groupIds: [] })).toBe(false);
  });

  it('a model for admins only stays for admins only, whatever groups it names', () => {
    expect(mayPickModel({ adminsOnly: true, groupIds: [] }, { groupIds: ['grp_finance'] })).toBe(false);
    expect(mayPickModel({ adminsOnly: true, groupIds: ['grp_finance'] }, { groupIds: ['grp_finance'] })).toBe(false);
    expect(mayPickModel({ adminsOnly: true, groupIds: ['grp_finance'] }, { isAdmin: true })).toBe(true);
    expect(mayPickModel({ adminsOnly: false, groupIds: ['grp_finance'] }, { groupIds: ['grp_finance'] })).toBe(true);
    expect(mayPickModel({ adminsOnly: false, groupIds: ['grp_finance'] }, { groupIds: [] })).toBe(false);
    expect(mayPickModel({ adminsOnly: false, groupIds: [] }, {})).toBe(true);
  });
});

describe('groups', () => {
  let direct: DbHandle;
  beforeAll(async () => {
    direct = await openTestDb();
  });
  afterAll(async () => {
    await direct?.close();
  });
  const newUser = (role: 'admin' | 'user' = 'user') => createUser(direct.db, { email: `groups-${unique()}@test.local`, name: `Member ${unique()}`, password: 'groups-password-123', role });

  it('are created, renamed, listed with their member counts, and take members once', async () => {
    const group = await createGroup(direct.db, { name: `Finance ${unique()}`, description: 'Money people' });
    expect(group).toMatchObject({ description: 'Money people', memberCount: 0 });
    await expect(createGroup(direct.db, { name: group.name })).rejects.toBeInstanceOf(ConflictError);
    await expect(createGroup(direct.db, { name: '   ' })).rejects.toThrow();

    const [alice, bob] = await Promise.all([newUser(), newUser()]);
    await addGroupMember(direct.db, group.id, alice.id);
    await addGroupMember(direct.db, group.id, alice.id);
    await addGroupMember(direct.db, group.id, bob.id);
    expect((await getGroup(direct.db, group.id)).members.map((member) => member.id).sort()).toEqual([alice.id, bob.id].sort());
    expect((await listGroups(direct.db)).find((listed) => listed.id === group.id)?.memberCount).toBe(2);
    expect(await groupIdsOfUser(direct.db, alice.id)).toEqual([group.id]);

    const renamed = await updateGroup(direct.db, group.id, { name: `${group.name} team` });
    expect(renamed).toMatchObject({ name: `${group.name} team`, description: 'Money people', memberCount: 2 });
    expect((await groupsOfUsers(direct.db, [alice.id, bob.id])).get(bob.id)).toEqual([{ id: group.id, name: renamed.name }]);

    await removeGroupMember(direct.db, group.id, bob.id);
    await expect(removeGroupMember(direct.db, group.id, bob.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(addGroupMember(direct.db, group.id, 'usr_nobody')).rejects.toBeInstanceOf(NotFoundError);
    await expect(addGroupMember(direct.db, 'grp_nothing', alice.id)).rejects.toBeInstanceOf(NotFoundError);
    // A deleted user leaves their groups.
    await deleteUser(direct.db, alice.id, bob.id);
    expect((await getGroup(direct.db, group.id)).members).toEqual([]);
    await deleteGroup(direct.db, group.id);
    await expect(getGroup(direct.db, group.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a group that decides who can use a model or an agent cannot be deleted until it no longer does', async () => {
    const group = await createGroup(direct.db, { name: `Research ${unique()}` });
    const model = await createModel(direct.db, { name: `Costly ${unique()}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'costly', groupIds: [group.id] }, APP_SECRET);
    const agent = await createAgent(direct.db, { name: `Analyst ${unique()}`, groupIds: [group.id] });
    const refused = await deleteGroup(direct.db, group.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toContain(model.name);
    expect((refused as Error).message).toContain(agent.name);
    await updateModel(direct.db, model.id, { groupIds: [] }, APP_SECRET);
    await updateAgent(direct.db, agent.id, { groupIds: [] });
    await deleteGroup(direct.db, group.id);
  });

  it('models and agents name only groups that exist, and the default model or agent names none', async () => {
    const group = await createGroup(direct.db, { name: `Legal ${unique()}` });
    await expect(createModel(direct.db, { name: 'Ghost', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'ghost', groupIds: ['grp_ghost'] }, APP_SECRET)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(createAgent(direct.db, { name: 'Ghost', groupIds: ['grp_ghost'] })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(createModel(direct.db, { name: 'Default', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'default', groupIds: [group.id], isDefault: true }, APP_SECRET)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(createAgent(direct.db, { name: 'Default', groupIds: [group.id], isDefault: true })).rejects.toBeInstanceOf(InvalidInputError);
    const agent = await createAgent(direct.db, { name: `Legal agent ${unique()}`, groupIds: [group.id, group.id] });
    expect(agent.groupIds).toEqual([group.id]);
    await expect(updateAgent(direct.db, agent.id, { isDefault: true })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('a run choice outside the asker’s groups is refused (403), an admin’s or a member’s is not; a model for admins only stays refused to members', async () => {
    const group = await createGroup(direct.db, { name: `Board ${unique()}` });
    const model = await createModel(direct.db, { name: `Board model ${unique()}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'board', groupIds: [group.id] }, APP_SECRET);
    const secret = await createModel(direct.db, { name: `Board secret ${unique()}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'secret', groupIds: [group.id], adminsOnly: true }, APP_SECRET);
    const agent = await createAgent(direct.db, { name: `Board agent ${unique()}`, groupIds: [group.id] });
    const outsider = { userId: 'usr_outsider', groupIds: [] };
    const member = { userId: 'usr_member', groupIds: [group.id] };
    const admin = { userId: 'usr_admin', isAdmin: true };
    await expect(checkRunChoices(direct.db, outsider, { modelId: model.id })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(checkRunChoices(direct.db, outsider, { agentId: agent.id })).rejects.toThrow(/only for some groups/);
    await checkRunChoices(direct.db, member, { modelId: model.id, agentId: agent.id });
    await checkRunChoices(direct.db, admin, { modelId: secret.id, agentId: agent.id });
    await expect(checkRunChoices(direct.db, member, { modelId: secret.id })).rejects.toThrow(/administrators only/);
  });
});

/** One "process": its own database pool, its own Redis connections, its own config cache (as config-cache.test.ts). */
type Process = { database: DbHandle; cache: ConfigCache; close: () => Promise<void> };

async function startProcess(prefix: string): Promise<Process> {
  const database = await openTestDb();
  const publisher = new Redis(testRedisUrl());
  const subscriber = new Redis(testRedisUrl());
  const { cache, close } = await startConfigCache(database.db, { publisher, subscriber, prefix });
  return {
    database,
    cache,
    close: async () => {
      await close();
      subscriber.disconnect();
      publisher.disconnect();
      await database.close();
    },
  };
}

describe('group access across processes', () => {
  const prefix = randomPrefix('groups');
  let a: Process;
  let b: Process;

  beforeAll(async () => {
    [a, b] = await Promise.all([startProcess(prefix), startProcess(prefix)]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('the signed-in user carries their group ids, read with the user; a membership change in one process reaches the other’s cache', async () => {
    const user = await createUser(a.database.db, { email: `groups-${unique()}@test.local`, name: 'Cached member', password: 'groups-password-123', role: 'user' });
    const group = await createGroup(a.database.db, { name: `Ops ${unique()}` });
    const { token } = await createSession(a.database.db, user.id);
    expect((await resolveSession(b.database.db, token))?.groupIds).toEqual([]);
    const loads = b.cache.stats.loads;
    expect((await resolveSession(b.database.db, token))?.groupIds).toEqual([]);
    expect(b.cache.stats.loads).toBe(loads);

    await addGroupMember(a.database.db, group.id, user.id);
    await expect.poll(async () => (await resolveSession(b.database.db, token))?.groupIds, { timeout: 2_000 }).toEqual([group.id]);
    await removeGroupMember(a.database.db, group.id, user.id);
    await expect.poll(async () => (await resolveSession(b.database.db, token))?.groupIds, { timeout: 2_000 }).toEqual([]);

    // An API token's user carries them too (read in the token's one statement).
    await addGroupMember(a.database.db, group.id, user.id);
    const { token: apiToken } = await createApiToken(a.database.db, user.id, { name: 'script' });
    expect((await resolveApiToken(b.database.db, apiToken))?.groupIds).toEqual([group.id]);
  });

  it('a model’s or an agent’s groups changed in one process are what the other’s snapshot holds', async () => {
    const group = await createGroup(a.database.db, { name: `Sales ${unique()}` });
    const model = await createModel(a.database.db, { name: `Sales model ${unique()}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'sales' }, APP_SECRET);
    const agent = await createAgent(a.database.db, { name: `Sales agent ${unique()}` });
    const groupsInB = () => findInAgentConfig(b.database.db, (config) => ({ model: config.models.find((row) => row.id === model.id)?.groupIds, agent: config.agents.find((row) => row.id === agent.id)?.groupIds }));
    await expect.poll(groupsInB, { timeout: 2_000 }).toEqual({ model: [], agent: [] });
    await updateModel(a.database.db, model.id, { groupIds: [group.id] }, APP_SECRET);
    await updateAgent(a.database.db, agent.id, { groupIds: [group.id] });
    await expect.poll(groupsInB, { timeout: 2_000 }).toEqual({ model: [group.id], agent: [group.id] });
    const outsider = { userId: 'usr_outsider', groupIds: [] };
    await expect(checkRunChoices(b.database.db, outsider, { modelId: model.id })).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('groups on the embedded PGlite (the all-in-one server)', () => {
  it('stores groups, memberships and who can use a model, and reads a signed-in user’s group ids with them', async () => {
    const embedded = await openEmbeddedTestDb();
    try {
      const { db } = embedded;
      const user = await createUser(db, { email: `pglite-${unique()}@test.local`, name: 'Embedded', password: 'groups-password-123', role: 'user' });
      const group = await createGroup(db, { name: 'Embedded team' });
      await addGroupMember(db, group.id, user.id);
      const { token } = await createSession(db, user.id);
      expect((await resolveSession(db, token))?.groupIds).toEqual([group.id]);
      expect((await groupsOfUsers(db, [user.id])).get(user.id)).toEqual([{ id: group.id, name: 'Embedded team' }]);
      const model = await createModel(db, { name: 'Embedded model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'embedded', groupIds: [group.id] }, APP_SECRET);
      expect(model.groupIds).toEqual([group.id]);
      await expect(deleteGroup(db, group.id)).rejects.toBeInstanceOf(ConflictError);
      await expect(checkRunChoices(db, { userId: 'usr_outsider' }, { modelId: model.id })).rejects.toBeInstanceOf(ForbiddenError);
      await checkRunChoices(db, { userId: user.id, groupIds: [group.id] }, { modelId: model.id });
    } finally {
      await embedded.close();
    }
  });
});
