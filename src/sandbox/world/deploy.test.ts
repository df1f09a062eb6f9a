import { describe, expect, it } from 'vitest';
import {
  agentPrivateKey,
  alignTick,
  createInitialState,
  fullRange,
  MAX_TICK,
  MIN_TICK,
  plannedDexes,
  priceFromSqrtPriceX96,
  rawPrice,
  sqrtPriceX96FromPrice,
  tickFromPrice,
  tickRange,
  toRawAmount,
  v3AmountsForValue,
} from './deploy.js';
import {
  CHARACTERS,
  POOL_PLAN,
  type PoolCharacter,
  TOKEN_PLAN,
  V3_TICK_SPACING,
  type WorldManifest,
} from './manifest.js';

describe('the plan', () => {
  it('deploys the four uniswap-design deployments the registry lists', () => {
    expect(plannedDexes().map((d) => `${d.protocol} ${d.version}`)).toEqual([
      'uniswap V2',
      'uniswap V3',
      'pancakeswap V3',
      'fraxfinance V2',
    ]);
  });

  it('has every pool character, several pools per deployment, known tokens and fee tiers', () => {
    const characters = new Set(POOL_PLAN.map((p) => p.character));
    for (const c of Object.keys(CHARACTERS)) expect(characters.has(c as PoolCharacter), c).toBe(true);
    for (const d of plannedDexes()) {
      expect(POOL_PLAN.filter((p) => p.protocol === d.protocol && p.version === d.version).length).toBeGreaterThan(2);
    }
    const symbols = new Set(TOKEN_PLAN.map((t) => t.symbol));
    for (const p of POOL_PLAN) {
      expect(p.tokens.every((t) => symbols.has(t))).toBe(true);
      if (p.version === 'V3') expect(V3_TICK_SPACING[p.fee]).toBeDefined();
      else expect(p.fee).toBe(3000);
    }
    const keys = POOL_PLAN.map((p) => `${p.protocol} ${p.version} ${[...p.tokens].sort().join('/')} ${p.fee}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('AMM math', () => {
  it.each([1e-9, 3.3e-9, 1, 3000, 3.3e8, 6e4 * 1e10])('sqrtPriceX96 round-trips price %d', (price) => {
    expect(priceFromSqrtPriceX96(sqrtPriceX96FromPrice(price)) / price).toBeCloseTo(1, 10);
  });

  it('prices raw units by decimals', () => {
    // 1 WETH (18) = 3000 USDC (6): a raw wei buys 3000e6 / 1e18 raw USDC.
    expect(rawPrice(3000, 18, 1, 6)).toBeCloseTo(3000e-12, 20);
    expect(rawPrice(1, 6, 3000, 18) * rawPrice(3000, 18, 1, 6)).toBeCloseTo(1, 12);
  });

  it.each([
    [-887272, 60, 'up', -887220],
    [887272, 60, 'down', 887220],
    [-1, 10, 'down', -10],
    [-1, 10, 'up', 0],
    [123, 1, 'down', 123],
    [999_999, 200, 'up', 887200],
  ] as const)('alignTick(%d, %d, %s) = %d', (tick, spacing, direction, expected) => {
    expect(alignTick(tick, spacing, direction)).toBe(expected);
  });

  it('builds non-empty ranges of multiples of the spacing around the price', () => {
    for (const [fee, spacing] of Object.entries(V3_TICK_SPACING)) {
      for (const price of [1e-9, 1, 3000e-12, 2e4]) {
        for (const width of [0.0005, 0.01, 0.5]) {
          const [lower, upper] = tickRange(price, width, spacing);
          expect(Number.isInteger(lower / spacing), `fee ${fee}`).toBe(true);
          expect(Number.isInteger(upper / spacing)).toBe(true);
          expect(lower).toBeLessThan(upper);
          expect(lower).toBeLessThanOrEqual(tickFromPrice(price));
          expect(upper).toBeGreaterThan(tickFromPrice(price));
        }
      }
      const [lo, hi] = fullRange(spacing);
      expect(lo).toBeGreaterThanOrEqual(MIN_TICK);
      expect(hi).toBeLessThanOrEqual(MAX_TICK);
    }
  });

  it('splits a V3 position value between the tokens', () => {
    const price = 2.5;
    const [lower, upper] = tickRange(price, 0.2, 60);
    const { amount0, amount1 } = v3AmountsForValue(price, lower, upper, 1000);
    expect(amount0 * price + amount1).toBeCloseTo(1000, 6);
    expect(amount0).toBeGreaterThan(0);
    expect(amount1).toBeGreaterThan(0);
    // Out of range: all in one token.
    expect(v3AmountsForValue(price, upper, upper + 60, 1000)).toEqual({ amount0: 400, amount1: 0 });
    expect(v3AmountsForValue(price, lower - 60, lower, 1000)).toEqual({ amount0: 0, amount1: 1000 });
  });

  it('floors float amounts and maps nonsense to zero', () => {
    expect(toRawAmount(12.9)).toBe(12n);
    expect(toRawAmount(1e30)).toBe(BigInt(1e30));
    expect(toRawAmount(-3)).toBe(0n);
    expect(toRawAmount(Number.NaN)).toBe(0n);
    expect(toRawAmount(Number.POSITIVE_INFINITY)).toBe(0n);
  });
});

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
  const initial = (seed: number, scale: number) =>
    createInitialState(manifest, { seed, scale, startTimestamp: 1_700_000_000, depthUsd: new Map() });

  it('derives keys deterministically from the seed', () => {
    expect(agentPrivateKey(1, 5)).toBe(agentPrivateKey(1, 5));
    expect(agentPrivateKey(1, 5)).not.toBe(agentPrivateKey(2, 5));
    expect(agentPrivateKey(1, -1)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  });

  it('is deterministic and JSON-serialisable', () => {
    const a = initial(9, 0.5);
    expect(JSON.parse(JSON.stringify(a))).toEqual(initial(9, 0.5));
    expect(initial(10, 0.5).agents[3]!.address).not.toBe(a.agents[3]!.address);
  });

  it('scales the population and gives each pool a clientele by character', () => {
    const small = initial(1, 0.2);
    const big = initial(1, 2);
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

  it('gives traders very different sizes and habits', () => {
    const traders = initial(4, 1).agents.filter((a) => a.role === 'trader');
    const sizes = traders.map((t) => t.medianTradeUsd).sort((a, b) => a - b);
    expect(sizes.at(-1)! / sizes[0]!).toBeGreaterThan(100);
    expect(new Set(traders.map((t) => t.activeFromHour)).size).toBeGreaterThan(12);
    for (const t of traders) expect(t.activeHours >= 6 && t.activeHours <= 18).toBe(true);
  });
});
