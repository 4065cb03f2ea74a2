import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

it('runs on the pinned Node 24', () => {
  expect(process.versions.node.split('.')[0]).toBe('24');
});

describe('npm install on a shell whose Node is not 24', () => {
  const scripts = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')).scripts as Record<string, string>;
  // npm runs the root preinstall after it has installed the pinned Node into node_modules/.bin,
  // so the script sees Node 24 either way; npm's own Node is in npm_config_user_agent.
  const preinstall = (userAgent: string) =>
    spawnSync('sh', ['-c', scripts.preinstall!], { cwd: repoRoot, env: { ...process.env, npm_config_user_agent: userAgent }, encoding: 'utf8' });

  it('prints one line about the pinned Node instead of a wall of engine warnings', () => {
    const older = preinstall('npm/11.19.1 node/v20.20.2 linux x64 workspaces/false');
    expect(older.status).toBe(0);
    expect(older.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^note: npm runs on Node v20\.20\.2; agentq runs on the Node 24 pinned in node_modules\/\.bin/)]);
    expect(readFileSync(`${repoRoot}.npmrc`, 'utf8')).toMatch(/^loglevel=error$/m);
  });

  it('says nothing when npm itself runs on Node 24', () => {
    const same = preinstall('npm/11.19.1 node/v24.21.0 linux x64 workspaces/false');
    expect(same.status).toBe(0);
    expect(same.stderr).toBe('');
  });
});
