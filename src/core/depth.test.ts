import { describe, expect, it } from 'vitest';
import { Q96 } from './decimal.js';
import {
  type DepthPoolState,
  depthTable,
  pairSellDepthUsd,
  poolDepthState,
  poolPrice,
  sellDepth,
  sidePrice,
} from './depth.js';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

function v2(reserve0: bigint, reserve1: bigint, fee = 3000, decimals0 = 18, decimals1 = 18): DepthPoolState {
  return {
    address: '0xv2',
    design: 'uniswap-v2',
    token0: '0xa',
    token1: '0xb',
    decimals0,
    decimals1,
    fee,
    reserve0,
    reserve1,
    sqrtPriceX96: null,
    liquidity: null,
  };
}

/** A V3 pool at raw price `price` (token1 raw per token0 raw) with active liquidity L and ample balances. */
function v3(price: number, liquidity: bigint, fee = 500, balances?: [bigint, bigint]): DepthPoolState {
  const sqrtPriceX96 = BigInt(Math.round(Math.sqrt(price) * 2 ** 48)) * 2n ** 48n;
  return {
    address: '0xv3',
    design: 'uniswap-v3',
    token0: '0xa',
    token1: '0xb',
    decimals0: 18,
    decimals1: 18,
    fee,
    reserve0: balances?.[0] ?? 10n ** 40n,
    reserve1: balances?.[1] ?? 10n ** 40n,
    sqrtPriceX96,
    liquidity,
  };
}

/** Uniswap V2's getAmountOut (fee in hundredths of a bp), independent of the module. */
function v2Swap(pool: DepthPoolState, side: 0 | 1, amountIn: bigint) {
  const [rin, rout] = side === 0 ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
  const inWithFee = amountIn * BigInt(1e6 - pool.fee);
  const out = (inWithFee * rout) / (rin * 1_000_000n + inWithFee);
  const after = side === 0 ? [rin + amountIn, rout - out] : [rout - out, rin + amountIn];
  return { out, reserve0: after[0]!, reserve1: after[1]! };
}

describe('sellDepth, uniswap-v2', () => {
  const cases: { name: string; pool: DepthPoolState }[] = [
    { name: 'balanced, 0.3 %', pool: v2(1000n * E18, 1000n * E18) },
    { name: 'ETH/USDC-like, 6 decimals', pool: v2(500n * E18, 1_500_000n * E6, 3000, 18, 6) },
    { name: 'no fee', pool: v2(123n * E18, 456n * E18, 0) },
    { name: '1 % fee, skewed', pool: v2(7n * E18, 90_000n * E18, 10_000) },
  ];
  for (const { name, pool } of cases) {
    for (const side of [0, 1] as const) {
      for (const m of [0.01, 0.02, 0.05, 0.1]) {
        it(`${name}: selling token${side} moves its price by ${m * 100} %`, () => {
          const before = sidePrice(pool, side)!;
          const d = sellDepth(pool, side, m);
          expect(d.reachable).toBe(true);
          const swap = v2Swap(pool, side, d.amountIn);
          const after = sidePrice({ ...pool, reserve0: swap.reserve0, reserve1: swap.reserve1 }, side)!;
          expect(after / before).toBeCloseTo(1 - m, 9);
          // The received amount is what the pool pays for that input (within rounding of the floored input).
          const rel = Number(swap.out - d.amountOut) / Number(swap.out);
          expect(Math.abs(rel)).toBeLessThan(1e-9);
        });
      }
    }
  }

  it('depth grows with the move and with the reserves', () => {
    const pool = v2(1000n * E18, 1000n * E18);
    const moves = depthTable(pool, [0.01, 0.02, 0.05]);
    expect(moves[0]!.sell0.amountIn < moves[1]!.sell0.amountIn).toBe(true);
    expect(moves[1]!.sell0.amountIn < moves[2]!.sell0.amountIn).toBe(true);
    const doubled = sellDepth(v2(2000n * E18, 2000n * E18), 0, 0.02);
    expect(Number(doubled.amountIn) / Number(moves[1]!.sell0.amountIn)).toBeCloseTo(2, 9);
  });

  it('a 1 % move of a no-fee balanced pool needs about 0.5 % of the reserve (x(1/√(1−m) − 1))', () => {
    const d = sellDepth(v2(1000n * E18, 1000n * E18, 0), 0, 0.01);
    expect(Number(d.amountIn) / 1e18).toBeCloseTo(1000 * (1 / Math.sqrt(0.99) - 1), 9);
  });

  it('an empty pool has no depth', () => {
    expect(sellDepth(v2(0n, 0n), 0, 0.01)).toEqual({
      side: 0,
      priceMove: 0.01,
      amountIn: 0n,
      amountOut: 0n,
      reachable: false,
    });
  });

  it('rejects moves outside (0, 1)', () => {
    expect(() => sellDepth(v2(E18, E18), 0, 0)).toThrow(RangeError);
    expect(() => sellDepth(v2(E18, E18), 0, 1)).toThrow(RangeError);
  });
});

describe('sellDepth, uniswap-v3 (constant active liquidity)', () => {
  /** Uniswap V3 SqrtPriceMath within one range, in floats, independent of the module. */
  function v3Swap(pool: DepthPoolState, side: 0 | 1, amountIn: bigint) {
    const L = Number(pool.liquidity!);
    const s = Number(pool.sqrtPriceX96!) / 2 ** 96;
    const net = Number(amountIn) * (1 - pool.fee / 1e6);
    if (side === 0) {
      const s2 = (L * s) / (L + net * s); // getNextSqrtPriceFromAmount0RoundingUp
      return { out: L * (s - s2), price: s2 * s2 };
    }
    const s2 = s + net / L; // getNextSqrtPriceFromAmount1RoundingDown
    return { out: L * (1 / s - 1 / s2), price: s2 * s2 };
  }

  const pools = [
    { name: 'price 1, 0.05 %', pool: v3(1, 10n ** 24n) },
    { name: 'wstETH/WETH-like price 1.18, 0.01 %', pool: v3(1.18, 5n * 10n ** 23n, 100) },
    { name: 'raw price 3e-9 (WETH/USDC), 0.3 %', pool: v3(3e-9, 10n ** 18n, 3000) },
  ];
  for (const { name, pool } of pools) {
    for (const side of [0, 1] as const) {
      for (const m of [0.01, 0.02, 0.05]) {
        it(`${name}: selling token${side} moves its price by ${m * 100} %`, () => {
          const d = sellDepth(pool, side, m);
          expect(d.reachable).toBe(true);
          const before = Number(pool.sqrtPriceX96!) ** 2 / 2 ** 192;
          const swap = v3Swap(pool, side, d.amountIn);
          const ratio = side === 0 ? swap.price / before : before / swap.price;
          expect(ratio).toBeCloseTo(1 - m, 9);
          expect(Math.abs(swap.out - Number(d.amountOut)) / swap.out).toBeLessThan(1e-9);
        });
      }
    }
  }

  it('capped by the pool balance of the token received', () => {
    const pool = v3(1, 10n ** 24n, 500, [10n ** 24n, 10n ** 21n]);
    const free = sellDepth({ ...pool, reserve1: 10n ** 40n }, 0, 0.05);
    expect(free.amountOut > 10n ** 21n).toBe(true);
    const capped = sellDepth(pool, 0, 0.05);
    expect(capped.reachable).toBe(false);
    expect(capped.amountOut).toBe(10n ** 21n);
    expect(capped.amountIn < free.amountIn).toBe(true);
    // The other direction is not limited by token1's balance.
    expect(sellDepth(pool, 1, 0.05).reachable).toBe(true);
  });

  it('no liquidity in range: no depth', () => {
    expect(sellDepth({ ...v3(1, 0n) }, 0, 0.01).reachable).toBe(false);
    expect(sellDepth({ ...v3(1, 0n) }, 0, 0.01).amountIn).toBe(0n);
  });
});

describe('poolPrice and poolDepthState', () => {
  it('V2 price is reserve1/reserve0 normalised; V3 from sqrtPriceX96', () => {
    expect(poolPrice(v2(2n * E18, 6000n * E6, 3000, 18, 6))).toBeCloseTo(3000, 9);
    const state = poolDepthState(
      { address: '0xp', design: 'uniswap-v3', token0: '0xa', token1: '0xb', fee: 100 },
      { reserve0: E18, reserve1: E18, sqrtPriceX96: Q96, liquidity: E18 },
      18,
      18,
    );
    expect(poolPrice(state)).toBe(1);
    expect(sidePrice(state, 1)).toBe(1);
  });
});

describe('pairSellDepthUsd', () => {
  const a = { ...v2(1000n * E18, 1000n * E18), address: '0xp1' };
  const b = { ...v2(500n * E18, 500n * E18), address: '0xp2', token0: '0xb', token1: '0xa' };
  const other = { ...v2(500n * E18, 500n * E18), address: '0xp3', token1: '0xc' };

  it('sums the pair pools in both orientations, ignores other pairs, prices the sold token', () => {
    const d = pairSellDepthUsd([a, b, other], '0xA', '0xb', 0.02, { '0xa': 2000 });
    const expected = Number(sellDepth(a, 0, 0.02).amountIn) / 1e18 + Number(sellDepth(b, 1, 0.02).amountIn) / 1e18;
    expect(d.pools.map((p) => p.pool)).toEqual(['0xp1', '0xp2']);
    expect(d.tokens).toBeCloseTo(expected, 9);
    expect(d.usd).toBeCloseTo(expected * 2000, 6);
    expect(d.reachable).toBe(true);
  });

  it('USD is null without the sold token price; accepts a Map', () => {
    expect(pairSellDepthUsd([a], '0xa', '0xb', 0.01, new Map([['0xb', 1]])).usd).toBeNull();
    expect(pairSellDepthUsd([a], '0xa', '0xb', 0.01, new Map([['0xa', 1]])).usd).toBeGreaterThan(0);
  });

  it('no pool of the pair: zero depth', () => {
    expect(pairSellDepthUsd([other], '0xa', '0xb', 0.01, { '0xa': 1 })).toMatchObject({ tokens: 0, usd: 0 });
  });
});
