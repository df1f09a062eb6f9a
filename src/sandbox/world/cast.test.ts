import { describe, expect, it } from 'vitest';
import { agentPrivateKey } from '../chain/agent.js';
import { CHARACTERS, POOL_PLAN } from '../protocols/uniswap/plan.js';
import { createInitialState } from './cast.js';
import type { WorldManifest } from './manifest.js';
import { TOKEN_PLAN } from './plan.js';

describe('the cast', () => {
  const manifest = {
    pools: POOL_PLAN.map((p, i) => ({
      address: `0x${(i + 1).toString(16).padStart(40, '0')}`,
      protocol: p.protocol,
      version: p.version,
      token0: '0x01',
      token1: '0x02',
      fee: p.fee,
      character: p.character,
    })),
    tokens: TOKEN_PLAN.map((t, i) => ({
      symbol: t.symbol,
      address: `0x${(i + 1).toString(16).padStart(2, '0')}`,
      initialPriceUsd: t.initialPriceUsd,
    })),
  } as unknown as WorldManifest;
  const initial = async (seed: number, scale: number) =>
    (await createInitialState(manifest, { seed, scale, startTimestamp: 1_700_000_000 })).state;

  it('derives keys deterministically from the seed', () => {
    expect(agentPrivateKey(1, 5)).toBe(agentPrivateKey(1, 5));
    expect(agentPrivateKey(1, 5)).not.toBe(agentPrivateKey(2, 5));
    expect(agentPrivateKey(1, -1)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  });

  it('is deterministic and JSON-serialisable', async () => {
    const a = await initial(9, 0.5);
    expect(JSON.parse(JSON.stringify(a))).toEqual(await initial(9, 0.5));
    expect((await initial(10, 0.5)).agents[3]!.address).not.toBe(a.agents[3]!.address);
  });

  it('scales the population and gives each pool a clientele by character', async () => {
    const small = await initial(1, 0.2);
    const big = await initial(1, 2);
    const count = (s: typeof small, role: string) => s.agents.filter((a) => a.role === role).length;
    expect(count(small, 'trader')).toBe(20);
    expect(count(big, 'trader')).toBe(200);
    expect(count(big, 'arbitrageur')).toBe(1);
    expect(count(big, 'bot')).toBe(POOL_PLAN.filter((p) => p.character === 'single-trader').length);
    expect(new Set(big.agents.map((a) => a.address)).size).toBe(big.agents.length);
    for (const pool of big.pools) {
      expect(pool.clientele.length).toBeGreaterThanOrEqual(CHARACTERS[pool.character].minClientele);
      for (const i of pool.clientele) expect(big.agents[i]!.role).toBe('trader');
      if (pool.character === 'single-trader') expect(big.agents[pool.bot!]!.role).toBe('bot');
      if (pool.character === 'bursty') expect(pool.burstEnd! > pool.burstStart!).toBe(true);
    }
    const deep = big.pools.find((p) => p.character === 'deep-busy')!;
    const thin = big.pools.find((p) => p.character === 'thin-steady')!;
    expect(deep.clientele.length).toBeGreaterThan(5 * thin.clientele.length);
  });

  it('gives traders very different sizes and habits', async () => {
    const traders = (await initial(4, 1)).agents.filter((a) => a.role === 'trader');
    const sizes = traders.map((t) => t.medianTradeUsd).sort((a, b) => a - b);
    expect(sizes.at(-1)! / sizes[0]!).toBeGreaterThan(100);
    expect(new Set(traders.map((t) => t.activeFromHour)).size).toBeGreaterThan(12);
    for (const t of traders) expect(t.activeHours >= 6 && t.activeHours <= 18).toBe(true);
  });
});
