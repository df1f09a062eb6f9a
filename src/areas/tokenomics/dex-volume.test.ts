import { describe, expect, it } from 'vitest';
import type { PoolFact, SwapFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import { type DexVolumeFacts, dexVolumeOf } from './dex-volume.js';

const TOK = '0x00000000000000000000000000000000000000aa';
const WETH = '0x00000000000000000000000000000000000000ee';
const USDC = '0x00000000000000000000000000000000000000cc';
const P1 = '0x0000000000000000000000000000000000000001'; // TOK/WETH
const P2 = '0x0000000000000000000000000000000000000002'; // USDC/TOK (the token as token1)
const P3 = '0x0000000000000000000000000000000000000003'; // WETH/USDC (not the token's)
const E18 = 10n ** 18n;
const HOUR = 3600;
const T = 1_700_000_000 - (1_700_000_000 % HOUR); // an hour's start
const AS_OF = T + 10 * HOUR;
const AT = { token: TOK, blockNumber: 100, asOf: AS_OF };

const token = (address: string, decimals: number): TokenFact => ({
  chain: 'ethereum',
  address,
  symbol: address.slice(-2),
  name: address,
  decimals,
});
const pool = (address: string, token0: string, token1: string, createdBlock = 1): PoolFact => ({
  chain: 'ethereum',
  address,
  protocol: 'uniswap',
  version: 'V2',
  design: 'uniswap-v2',
  factory: '0xf',
  token0,
  token1,
  fee: 3000,
  tickSpacing: null,
  createdBlock,
  createdAt: T - 30 * 86_400,
});
let log = 0;
const swap = (p: string, timestamp: number, amount0: bigint, amount1: bigint, blockNumber = 50): SwapFact => ({
  chain: 'ethereum',
  pool: p,
  blockNumber,
  logIndex: log++,
  txHash: `0x${log}`,
  trader: '0xt',
  amount0,
  amount1,
  sqrtPriceX96: null,
  liquidity: null,
  tick: null,
  timestamp,
});
const price = (t: string, hour: number, priceUsd: number): TokenPriceFact => ({
  chain: 'ethereum',
  token: t,
  hour,
  priceUsd,
  source: 'test',
  confidence: 1,
});
/** Hourly prices for the 24 hours to AS_OF and before: TOK 2 $, WETH 3000 $, USDC 1 $. */
const hours = Array.from({ length: 30 }, (_, k) => AS_OF - k * HOUR - (AS_OF % HOUR));
const allPrices = hours.flatMap((h) => [price(TOK, h, 2), price(WETH, h, 3000), price(USDC, h, 1)]);
const base: DexVolumeFacts = {
  pools: [pool(P1, TOK, WETH), pool(P2, USDC, TOK), pool(P3, WETH, USDC)],
  tokens: [token(TOK, 18), token(WETH, 18), token(USDC, 6)],
  swaps: [],
  prices: allPrices,
  head: { blockNumber: 120 },
};

const cases: {
  name: string;
  facts: Partial<DexVolumeFacts>;
  value?: number;
  swaps?: number;
  reason?: string;
}[] = [
  { name: 'pools tracked, no swap in the 24 hours: 0, not null', facts: {}, value: 0, swaps: 0 },
  {
    name: 'the input side (token into the pool) × its price of the hour',
    // 10 TOK in, 0.006 WETH out: 10 × 2 $ (the input side), not 0.006 × 3000 $.
    facts: { swaps: [swap(P1, AS_OF - HOUR, 10n * E18, -6n * 10n ** 15n)] },
    value: 20,
    swaps: 1,
  },
  {
    name: 'the other token is the input: its value, not the token leg × the token’s price',
    // 1 WETH in (3000 $), 1400 TOK out (2800 $ at the token's price): the DEX area counts 3000 $.
    facts: { swaps: [swap(P1, AS_OF - HOUR, -1400n * E18, E18)] },
    value: 3000,
    swaps: 1,
  },
  {
    name: 'the token as token1 and a 6-decimal input (USDC 25 in)',
    facts: { swaps: [swap(P2, AS_OF - 2 * HOUR, 25_000_000n, -12n * E18)] },
    value: 25,
    swaps: 1,
  },
  {
    name: 'window (asOf − 24 h, asOf]: the end counts, the start does not, later blocks do not, other pools do not',
    facts: {
      swaps: [
        swap(P1, AS_OF, 1n * E18, -1n), // at as_of: 2 $
        swap(P1, AS_OF - 86_400, 5n * E18, -1n), // exactly 24 h before: out
        swap(P1, AS_OF - 86_399, 3n * E18, -1n), // 6 $
        swap(P1, AS_OF - 10, 7n * E18, -1n, 101), // after the record's block: out
        swap(P3, AS_OF - 10, E18, -1n), // WETH/USDC: not the token's
      ],
    },
    value: 8,
    swaps: 2,
  },
  {
    name: 'the input side unpriced: the output side',
    facts: {
      swaps: [swap(P1, AS_OF - HOUR, 4n * E18, -1n * E18)],
      prices: allPrices.filter((p) => p.token !== TOK),
    },
    value: 3000,
    swaps: 1,
  },
  {
    name: 'a price of another hour is not the swap’s hour’s (the DEX area’s policy)',
    facts: {
      swaps: [swap(P1, AS_OF - HOUR, 4n * E18, -1n * E18)],
      prices: allPrices.filter((p) => p.hour !== AS_OF - HOUR - (AS_OF % HOUR)),
    },
    reason: 'no_price',
  },
  { name: 'no tracked pool holds the token', facts: { pools: [pool(P3, WETH, USDC)] }, reason: 'no_members' },
  {
    name: 'a pool created after the record’s block is not yet tracked at it',
    facts: { pools: [pool(P1, TOK, WETH, 101)] },
    reason: 'no_members',
  },
  { name: 'the DEX facts end before the record’s block', facts: { head: { blockNumber: 99 } }, reason: 'no_data' },
  { name: 'no DEX facts ingested yet', facts: { head: undefined }, reason: 'no_data' },
  { name: 'a pool token without metadata', facts: { tokens: [token(TOK, 18)] }, reason: 'no_data' },
];

describe('a token’s on-chain DEX volume over the 24 hours to as_of', () => {
  it.each(cases)('$name', (c) => {
    const v = dexVolumeOf({ ...base, ...c.facts })(AT);
    if (c.reason !== undefined) {
      expect(v.value).toBeNull();
      expect(v.reason).toBe(c.reason);
    } else {
      expect(v.reason).toBeNull();
      expect(v.value).toBeCloseTo(c.value!, 9);
      if (v.reason === null) expect(v.swaps).toBe(c.swaps);
    }
  });

  it('reads the token address in any case and sums every pool of the token', () => {
    const facts = { ...base, swaps: [swap(P1, AS_OF - HOUR, E18, -1n), swap(P2, AS_OF - HOUR, 3_000_000n, -E18)] };
    const v = dexVolumeOf(facts)({ ...AT, token: TOK.toUpperCase().replace('0X', '0x') });
    expect(v).toMatchObject({ value: 5, reason: null, pools: 2, swaps: 2 });
  });
});
