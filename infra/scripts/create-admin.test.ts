import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDb, users } from '@agentq/shared/db';
import { testDatabaseUrl } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function createAdmin(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/scripts/create-admin.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: testDatabaseUrl() },
    encoding: 'utf8',
    input: '',
  });
}

describe('npm run create-admin', () => {
  it('creates an admin who can then be found by email, refuses a duplicate, and explains bad input', async () => {
    const email = `made-${Date.now()}@test.local`;
    const created = createAdmin(['--email', email, '--password', 'a-long-password', '--name', 'Ops']);
    expect(created.stdout).toContain(`Created admin ${email}`);
    expect(created.status).toBe(0);
    const database = await createDb({ url: testDatabaseUrl(), poolSize: 1 });
    const [row] = await database.db.select().from(users).where(eq(users.email, email));
    await database.close();
    expect(row).toMatchObject({ role: 'admin', name: 'Ops' });
    expect(row!.passwordHash).not.toContain('a-long-password');

    const duplicate = createAdmin(['--email', email, '--password', 'a-long-password']);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toContain('already exists');

    const bad = createAdmin(['--email', 'not-an-email', '--password', 'short']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/email/);
    expect(bad.stderr).toMatch(/password/);
  });
});
