/** The computation's pure pieces on their own: holders, collateral kinds, rates and the peg. */
import { describe, expect, it } from 'vitest';
import type { StableEventFact } from './facts.js';
import { holderConcentration, replayHolders } from './holders.js';
import { classifyIlk, collateralMarket, type Sell, yearlyRate } from './maker-figures.js';
import { pegOfDay } from './market.js';

const E18 = 10n ** 18n;
const RAY = 10n ** 27n;
const PSM = '0x89b78cfa322f6c5de0abceecab66aee45393cc5a';
const HOLDER_A = '0x00000000000000000000000000000000000000a1';
const HOLDER_B = '0x00000000000000000000000000000000000000b2';
const ZERO = '0x0000000000000000000000000000000000000000';

/** A DAI Transfer at block `block` (its timestamp the block number). */
const transfer = (block: number, from: string, to: string, value: bigint): StableEventFact => ({
  chain: 'ethereum',
  protocol: 'makerdao',
  blockNumber: block,
  logIndex: 0,
  txHash: `0x${'ab'.repeat(32)}`,
  address: '0x6b175474e89094c44da98b954eedeac495271d0f',
  timestamp: block,
  event: { source: 'event', kind: 'transfer', from, to, value },
});

describe('pure helpers', () => {
  it('holder concentration leaves out pools and the protocol’s contracts, and keeps the raw figure beside it', () => {
    const POOL = '0x00000000000000000000000000000000000000f0';
    const holders = new Map<string, bigint>(
      Array.from({ length: 20 }, (_, i) => [`0x${(i + 1).toString(16).padStart(40, '0')}`, BigInt(i + 1) * E18]),
    );
    const without = holderConcentration(holders, new Set())!;
    // 20 holders of 1…20: the 10 largest hold 155 of 210.
    expect(without.share).toBeCloseTo(155 / 210, 6);
    // Exit liquidity grows: a pool holding 4 times the holders' supply. Among holders nothing changes; raw, the pool
    // is the largest holder.
    const withPool = new Map([...holders, [POOL, 840n * E18]]);
    const c = holderConcentration(withPool, new Set([POOL, PSM]))!;
    expect(c.share).toBeCloseTo(without.share, 6);
    expect(c.excluded).toBe(1);
    expect(c.rawShare).toBeCloseTo((840 + 20 + 19 + 18 + 17 + 16 + 15 + 14 + 13 + 12) / 1050, 5);
    expect(holderConcentration(new Map([[POOL, E18]]), new Set([POOL]))).toBeNull();
  });

  it.each([
    ['ETH-A', 1, 'crypto'],
    ['PSM-USDC-A', 1, 'psm'],
    ['RWA014-A', 3, 'rwa'],
    ['DIRECT-AAVEV2-DAI', 4, 'credit-line'],
    ['TELEPORT-FW-A', 3, 'credit-line'],
    ['WSTETH-B', 1, 'crypto'],
  ] as const)('classifies %s (class %d) as %s', (name, cls, kind) => {
    expect(classifyIlk({ ilk: name, class: cls }, new Set())).toBe(kind);
  });

  it('an ilk a Chainlog PSM names is a PSM whatever its name', () => {
    expect(classifyIlk({ ilk: 'LITE-PSM-USDC-A', class: 1 }, new Set(['LITE-PSM-USDC-A']))).toBe('psm');
  });

  it('yearly rate of a per-second ray factor', () => {
    expect(yearlyRate(RAY)).toBe(0);
    expect(yearlyRate(1_000000000627937192491029810n)).toBeCloseTo(0.02, 8);
  });

  it('peg of a day: hours outside ±0.5 %, max deviation; no priced hour is unknown', () => {
    expect(pegOfDay([1, 1.004, 0.99, null])).toEqual({
      hoursPriced: 3,
      hoursOutside: 1,
      maxDeviation: expect.closeTo(0.01, 12),
      meanPrice: expect.closeTo((1 + 1.004 + 0.99) / 3, 12),
    });
    expect(pegOfDay([null, null])).toBeNull();
  });

  it('holders replay: balances, burns and the replayed supply at each block', () => {
    const out = replayHolders(
      [transfer(1, ZERO, HOLDER_A, 10n), transfer(2, HOLDER_A, HOLDER_B, 4n), transfer(3, HOLDER_B, ZERO, 4n)],
      [1, 2, 3],
    );
    expect([1, 2, 3].map((b) => [out.get(b)!.holders, out.get(b)!.supply])).toEqual([
      [1, 10n],
      [2, 10n],
      [1, 6n],
    ]);
  });

  it('a collateral without pools to the quotes is sold through an intermediate, each hop within 1 − √(1 − move)', () => {
    const [LINK, WETH, USDC] = ['0x11', '0x22', '0x33'];
    const moves: [string, string, number][] = [];
    // LINK/WETH pays 1 WETH per 100 LINK sold per 1 % of move; WETH/USDC takes 10 WETH per 1 % for 2,000 DAI each.
    const sell: Sell = (token, quote, move) => {
      moves.push([token, quote, move]);
      if (token === LINK && quote === WETH) return { tokens: 100 * move * 100, received: move * 100 };
      if (token === WETH && quote === USDC) return { tokens: 10 * move * 100, received: 2000 * 10 * move * 100 };
      return null;
    };
    const pools = [
      { token0: LINK, token1: WETH },
      { token0: WETH, token1: USDC },
    ];
    const m = collateralMarket(LINK, sell, pools, [USDC]);
    expect(m.gem).toBe(WETH);
    moves.length = 0;
    const hop = 1 - Math.sqrt(1 - 0.19);
    // First hop: 100 × hop WETH; the second hop takes 1,000 × hop WETH within its move: all of it sells, pro rata.
    expect(m.depth(0.19)).toBeCloseTo(2000 * 1000 * hop * Math.min(1, (100 * hop) / (1000 * hop)), 6);
    expect(moves.every(([, , x]) => Math.abs(x - hop) < 1e-12)).toBe(true);
    // A collateral with its own pool to a quote is sold there, and nothing routes without an intermediate.
    expect(collateralMarket(WETH, sell, pools, [USDC]).gem).toBe(WETH);
    expect(collateralMarket('0x44', sell, pools, [USDC]).depth(0.5)).toBe(0);
  });
});
