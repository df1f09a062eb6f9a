import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '../../test/helpers.js';
import { TokenRepository } from '../store/tokens.js';
import {
  forgetQuickstart,
  QUICKSTART_LIFETIME_S,
  quickstartLines,
  quickstartToken,
  quickstartTokenFile,
  readQuickstartFile,
  replaceQuickstart,
} from './quickstart.js';

const T0 = 1_800_000_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup() {
  const t = testStore();
  cleanups.push(t.cleanup);
  await t.store.migrate();
  return { store: t.store, dir: t.dir, tokens: new TokenRepository(t.store.db) };
}

async function states(tokens: TokenRepository) {
  return (await tokens.list()).map((t) => ({ id: t.id, name: t.name, revoked: t.revoked_at !== null }));
}

describe('the quickstart token', () => {
  it('is made once, kept in a 0600 file, and reused by later starts', async () => {
    const { store, dir, tokens } = await setup();
    const first = await quickstartToken(store, dir, 600, T0);
    expect(first).toMatchObject({ reused: false, expiresAt: T0 + QUICKSTART_LIFETIME_S });
    expect(readFileSync(quickstartTokenFile(dir), 'utf8')).toBe(`${first.token}\n`);
    expect(statSync(quickstartTokenFile(dir)).mode & 0o777).toBe(0o600);

    const second = await quickstartToken(store, dir, 600, T0 + 3_600);
    expect(second).toMatchObject({ reused: true, token: first.token, id: first.id });
    expect(await states(tokens)).toEqual([{ id: first.id, name: 'quickstart', revoked: false }]);
    expect(quickstartLines(second, 'http://127.0.0.1:8080')[0]).toMatch(
      /^Your token \(named "quickstart", valid until /,
    );
    expect(quickstartLines(second, 'http://127.0.0.1:8080')[1]).toBe(
      `  curl -H 'Authorization: Bearer ${first.token}' http://127.0.0.1:8080/authorization`,
    );
  });

  it.each([
    ['revoked', async (tokens: TokenRepository, id: string) => void (await tokens.revoke(id, T0 + 10)), T0 + 60],
    ['about to expire', async () => {}, T0 + QUICKSTART_LIFETIME_S - 3_600],
    ['expired', async () => {}, T0 + QUICKSTART_LIFETIME_S + 1],
  ])('is replaced when %s, and the previous quickstart token is revoked', async (_, change, at) => {
    const { store, dir, tokens } = await setup();
    const first = await quickstartToken(store, dir, 600, T0);
    await change(tokens, first.id);
    const next = await quickstartToken(store, dir, 600, at);
    expect(next.reused).toBe(false);
    expect(next.token).not.toBe(first.token);
    expect(readQuickstartFile(dir)).toBe(next.token);
    const all = await states(tokens);
    expect(all.filter((t) => !t.revoked)).toEqual([{ id: next.id, name: 'quickstart', revoked: false }]);
  });

  it('is replaced when the database does not know it, or the file holds something else', async () => {
    const { store, dir } = await setup();
    writeFileSync(quickstartTokenFile(dir), `ps_0123456789ab_${'A'.repeat(43)}\n`);
    const a = await quickstartToken(store, dir, 600, T0);
    expect(a.reused).toBe(false);
    // The right id with another secret is not the token.
    writeFileSync(quickstartTokenFile(dir), `ps_${a.id}_${'B'.repeat(43)}\n`);
    expect((await quickstartToken(store, dir, 600, T0)).reused).toBe(false);
    writeFileSync(quickstartTokenFile(dir), 'not a token\n');
    expect((await quickstartToken(store, dir, 600, T0)).reused).toBe(false);
  });

  it('keys rotate and keys revoke keep the file in step; other tokens leave it alone', async () => {
    const { store, dir, tokens } = await setup();
    const q = await quickstartToken(store, dir, 600, T0);
    const other = await tokens.create({ name: 'ci', expiresAt: null, rateLimit: 10, rateWindowSeconds: 60 }, T0);
    expect(replaceQuickstart(dir, other.id, 'ignored')).toBe(false);
    expect(forgetQuickstart(dir, other.id)).toBe(false);
    expect(readQuickstartFile(dir)).toBe(q.token);

    const rotated = await tokens.rotate(q.id, T0 + 100);
    expect(rotated).toMatchObject({ expiresAt: T0 + 100 + QUICKSTART_LIFETIME_S });
    expect(replaceQuickstart(dir, q.id, rotated!.token)).toBe(true);
    const kept = await quickstartToken(store, dir, 600, T0 + 200);
    expect(kept).toMatchObject({ reused: true, token: rotated!.token });
    expect(statSync(quickstartTokenFile(dir)).mode & 0o777).toBe(0o600);

    expect(forgetQuickstart(dir, rotated!.id)).toBe(true);
    expect(readQuickstartFile(dir)).toBeUndefined();
  });

  it('rotate copies name, rate and lifetime, revokes the old token, and refuses an inactive one', async () => {
    const { tokens } = await setup();
    const a = await tokens.create({ name: 'svc', expiresAt: T0 + 7 * 86_400, rateLimit: 5, rateWindowSeconds: 1 }, T0);
    const b = await tokens.rotate(a.id, T0 + 86_400);
    expect(b).toMatchObject({ expiresAt: T0 + 8 * 86_400 });
    const rows = await tokens.list();
    expect(rows.find((r) => r.id === a.id)?.revoked_at).toBe(T0 + 86_400);
    expect(rows.find((r) => r.id === b!.id)).toMatchObject({
      name: 'svc',
      rate_limit: 5,
      rate_window_seconds: 1,
      revoked_at: null,
    });
    expect(await tokens.rotate(a.id, T0 + 86_400)).toBeUndefined();
    expect(await tokens.rotate('ffffffffffff', T0)).toBeUndefined();
    expect(await tokens.rotate(b!.id, T0 + 30 * 86_400)).toBeUndefined();
  });
});
