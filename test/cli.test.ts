import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

describe('protoscore CLI', () => {
  const env = { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'cli-')) };

  it('keys create prints the token as the last line; list never shows it; revoke marks it', async () => {
    const created = await cli(['keys', 'create', '--name', 'ci-test', '--expires', '30d', '--rate', '100/min'], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^ps_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const id = token.split('_')[1]!;

    const listed = await cli(['keys', 'list', '--json'], env);
    // The whole secret (it may itself contain '_', so not split('_')[2]).
    expect(listed.stdout).not.toContain(token.slice(`ps_${id}_`.length));
    const rows = JSON.parse(listed.stdout);
    expect(rows).toContainEqual(expect.objectContaining({ id, name: 'ci-test', state: 'active', rate: '100/60s' }));

    expect((await cli(['keys', 'revoke', id], env)).code).toBe(0);
    const after = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout);
    expect(after).toContainEqual(expect.objectContaining({ id, state: 'revoked' }));
    expect((await cli(['keys', 'revoke', id], env)).code).toBe(1);
  }, 60_000);

  it('keys rotate prints the replacement as the last line and revokes the token it replaces', async () => {
    const created = await cli(['keys', 'create', '--name', 'rotated', '--rate', '5/s'], env);
    const id = created.stdout.trim().split('\n').at(-1)!.split('_')[1]!;
    const rotated = await cli(['keys', 'rotate', id], env);
    expect(rotated.code).toBe(0);
    const token = rotated.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^ps_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const next = token.slice(3, 15);
    const rows = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout);
    expect(rows).toContainEqual(expect.objectContaining({ id, state: 'revoked' }));
    expect(rows).toContainEqual(expect.objectContaining({ id: next, name: 'rotated', state: 'active', rate: '5/1s' }));
    const again = await cli(['keys', 'rotate', id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no active token');
  }, 60_000);

  it('rejects bad options and bad config with a message naming them', async () => {
    const badRate = await cli(['keys', 'create', '--name', 'x', '--rate', 'fast'], env);
    expect(badRate.code).not.toBe(0);
    expect(badRate.stderr).toMatch(/rate/);
    const badConfig = await cli(['migrate'], { ...env, PORT: 'nope' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('PORT');
  }, 60_000);

  it('jobs list and jobs run', async () => {
    const list = await cli(['jobs', 'list'], env);
    expect(list.stdout).toContain('maintenance.prune');
    const ran = await cli(['jobs', 'run', 'maintenance.prune'], env);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/maintenance.prune: ok/);
    expect((await cli(['jobs', 'run', 'no.such'], env)).code).toBe(2);
  }, 60_000);
});
