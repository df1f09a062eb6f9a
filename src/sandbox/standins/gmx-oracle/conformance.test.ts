import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_SECTION,
  fixtureHours,
  fixtureManifest,
  fixtureView,
  GENESIS,
  SYNTH_LINK,
  USDC,
  WBTC,
  WETH,
} from '../../../../test/support/gmx-oracle-world.js';
import { closedObject, conformance } from '../../../../test/support/wire-conformance.js';
import { type GmxOracleStandin, startGmxOracleStandin } from './server.js';
import { keeperPrice, oracleTokens, tickersAt } from './world.js';

/**
 * The stand-in's answers against what GMX publishes of its oracle keeper. No OpenAPI description exists; the types
 * GMX's own clients read the keeper with are gmx-io/gmx-interface `sdk/src/modules/oracle.ts` (`TickersResponse`,
 * `TokensResponse`; the same in @gmx-io/sdk 1.4.0 `build/types/src/modules/oracle.d.ts`), transcribed below as closed
 * schemas. `timestamp` (Unix seconds of the answer) is the one field the keeper sends beyond them. The price
 * convention (USD per smallest unit × 10^30, read back by the SDK's `parseContractPrice(price, decimals)`) is
 * checked against the world's reference prices, the ground truth.
 */

const SPEC = 'https://github.com/gmx-io/gmx-interface/blob/master/sdk/src/modules/oracle.ts';
const Address = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const BigIntString = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
const Ticker = closedObject(
  {
    minPrice: BigIntString,
    maxPrice: BigIntString,
    oracleDecimals: { type: 'integer' },
    tokenSymbol: { type: 'string' },
    tokenAddress: Address,
    updatedAt: { type: 'integer' },
    timestamp: { type: 'integer' },
  },
  ['minPrice', 'maxPrice', 'oracleDecimals', 'tokenSymbol', 'tokenAddress', 'updatedAt'],
);
const RESPONSES = {
  TickersResponse: { type: 'array', minItems: 1, items: Ticker },
  // The raw answer the SDK maps (`synthetic` → `isSynthetic`): `{tokens: [...]}`.
  TokensResponse: closedObject(
    {
      tokens: {
        type: 'array',
        items: closedObject(
          {
            symbol: { type: 'string' },
            address: Address,
            decimals: { type: 'integer' },
            synthetic: { type: 'boolean' },
          },
          ['symbol', 'address', 'decimals', 'synthetic'],
        ),
      },
    },
    ['tokens'],
  ),
  Errors: closedObject({ errors: { type: 'array', items: { type: 'string' } } }, ['errors']),
};
const validator = conformance({ [SPEC]: { $defs: RESPONSES } as never });

type Ticker = { tokenAddress: string; tokenSymbol: string; minPrice: string; maxPrice: string; updatedAt: number };
/** USD per whole token, as the SDK reads a ticker: price × 10^decimals / 10^30. */
const usd = (price: string, decimals: number) => Number(BigInt(price) * 10n ** BigInt(decimals)) / 1e30;

describe('GMX oracle keeper stand-in', () => {
  const hours = fixtureHours(5);
  let now = (GENESIS + 3 * 3600 + 1800) * 1000;
  let standin: GmxOracleStandin;
  const get = async (path: string) => {
    const res = await fetch(standin.url + path);
    return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
  };

  beforeAll(async () => {
    standin = await startGmxOracleStandin({
      seed: 5,
      clock: { nowMs: () => now },
      world: Promise.resolve(fixtureView(hours)),
    });
  });
  afterAll(() => standin?.close());

  it('answers tickers and tokens in the shape GMX publishes', async () => {
    const tickers = await get('/prices/tickers');
    expect(tickers.status).toBe(200);
    expect(validator.errors(`${SPEC}#/$defs/TickersResponse`, tickers.body)).toEqual([]);
    const tokens = await get('/tokens');
    expect(validator.errors(`${SPEC}#/$defs/TokensResponse`, tokens.body)).toEqual([]);
    const missing = await get('/prices/nothing');
    expect(missing.status).toBe(404);
    expect(validator.errors(`${SPEC}#/$defs/Errors`, missing.body)).toEqual([]);
  });

  it('quotes the last closed hour of the world, min ≤ reference ≤ max, for every token of the GMX section', async () => {
    const decimals = new Map(oracleTokens(fixtureManifest()).map((t) => [t.address.toLowerCase(), t.decimals]));
    const { body } = await get('/prices/tickers');
    const tickers = body as Ticker[];
    // The hour starting at GENESIS + 2 h closed at GENESIS + 3 h ≤ now; the next one is still open.
    const reference = hours[2]!.prices;
    const expected: Record<string, [string, number]> = {
      [WETH]: ['ETH', reference.WETH!],
      [USDC]: ['USDC', reference.USDC!],
      [WBTC]: ['BTC', reference.WBTC!],
      [SYNTH_LINK]: ['LINK', reference.LINK!],
    };
    expect(tickers.map((t) => t.tokenAddress).sort()).toEqual(Object.keys(expected).sort());
    for (const t of tickers) {
      const [symbol, price] = expected[t.tokenAddress]!;
      const d = decimals.get(t.tokenAddress.toLowerCase())!;
      expect(t.tokenSymbol).toBe(symbol);
      expect(t.updatedAt).toBe((GENESIS + 3 * 3600) * 1000);
      const min = usd(t.minPrice, d);
      const max = usd(t.maxPrice, d);
      expect(min).toBeLessThan(max);
      expect(min).toBeLessThanOrEqual(price);
      expect(max).toBeGreaterThanOrEqual(price);
      // The half-spread is at most 5 bp.
      expect((max - min) / price).toBeLessThanOrEqual(10.01e-4);
      expect(Math.abs((min + max) / 2 / price - 1)).toBeLessThan(1e-9);
    }
  });

  it('lists the synthetic index token with its decimals, and the ERC-20s as not synthetic', async () => {
    const { body } = await get('/tokens');
    const tokens = (body as { tokens: { address: string; decimals: number; synthetic: boolean }[] }).tokens;
    expect(tokens.find((t) => t.address === SYNTH_LINK)).toEqual({
      symbol: 'LINK',
      address: SYNTH_LINK,
      decimals: 18,
      synthetic: true,
    });
    expect(tokens.filter((t) => t.synthetic).length).toBe(1);
    expect(tokens.find((t) => t.address === WBTC)?.decimals).toBe(8);
  });

  it('gives the same quote for the same seed and instant, and moves with the hour', async () => {
    const a = (await get('/prices/tickers')).body;
    expect((await get('/prices/tickers')).body).toEqual(a);
    now += 3600 * 1000;
    const b = (await get('/prices/tickers')).body as Ticker[];
    expect(b).not.toEqual(a);
    expect(b[0]!.updatedAt).toBe((GENESIS + 4 * 3600) * 1000);
  });

  it('writes GMX prices: USD × 10^(30 − decimals), about 12 significant digits', () => {
    for (const [price, decimals, expected] of [
      [5000, 18, 5000n * 10n ** 12n],
      [50000, 8, 50000n * 10n ** 22n],
      [1, 6, 10n ** 24n],
      [0.0000123456, 18, 12345600n * 10n ** 0n],
    ] as const) {
      expect(keeperPrice(price, decimals).price).toBe(expected);
    }
    // WETH at 3456.789: 11 − 3 = 8 price decimals, precision 30 − 18 − 8 = 4.
    expect(keeperPrice(3456.789, 18)).toEqual({ price: 345678900000n * 10n ** 4n, oracleDecimals: 4 });
  });

  it('answers 503 until the world is open, and refuses a market whose tokens it cannot price', async () => {
    let open: (v: ReturnType<typeof fixtureView>) => void = () => undefined;
    const waiting = await startGmxOracleStandin({
      seed: 5,
      clock: { nowMs: () => now },
      world: new Promise((resolve) => {
        open = resolve;
      }),
    });
    try {
      const early = await fetch(`${waiting.url}/prices/tickers`);
      expect(early.status).toBe(503);
      expect(await early.json()).toEqual({ errors: ['prices are not available yet'] });
      open(fixtureView(hours));
      await new Promise((r) => setTimeout(r, 0));
      expect((await fetch(`${waiting.url}/prices/tickers`)).status).toBe(200);
    } finally {
      await waiting.close();
    }
    // The section's names win over GMX's usual ones (protocols/gmx lists every token as `WETH`, `USDC`, `BTC`).
    const named = {
      ...FIXTURE_SECTION,
      tokens: [...FIXTURE_SECTION.tokens!, { address: WETH, symbol: 'WETH', decimals: 18 }],
    };
    const weth = oracleTokens(fixtureManifest(named)).find((t) => t.address === WETH)!;
    expect([weth.symbol, weth.synthetic, weth.priceSymbol]).toEqual(['WETH', false, 'WETH']);
    const unpriced = { ...FIXTURE_SECTION, tokens: [] };
    expect(() => oracleTokens(fixtureManifest(unpriced))).toThrow(/has no price/);
  });

  it('quotes the manifest tokens of an Arbitrum world without a GMX section, at starting prices before any hour', () => {
    const manifest = fixtureManifest(false);
    expect(oracleTokens(manifest).map((t) => t.symbol)).toEqual(['ETH', 'USDC', 'BTC']);
    const quotes = tickersAt(5, { hours: () => [] }, manifest, (GENESIS + 600) * 1000);
    expect(quotes.map((q) => [q.tokenSymbol, q.updatedAt])).toEqual([
      ['ETH', GENESIS * 1000],
      ['USDC', GENESIS * 1000],
      ['BTC', GENESIS * 1000],
    ]);
    const eth = quotes[0]!;
    expect(usd(eth.minPrice, 18)).toBeLessThanOrEqual(3000);
    expect(usd(eth.maxPrice, 18)).toBeGreaterThanOrEqual(3000);
  });
});
