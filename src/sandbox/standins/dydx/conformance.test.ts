import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swagger from '../../../../test/fixtures/dydx/comlink-swagger-84d4664.json' with { type: 'json' };
import { TestClock } from '../../../../test/helpers.js';
import { conformance, openApi30ToJsonSchema } from '../../../../test/support/wire-conformance.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { DAY_MS, dayOf } from '../base/generate.js';
import { type ReferencePrices, syntheticReferencePrices } from '../perps/prices.js';
import { type DydxStandin, startDydxStandin } from './server.js';

/**
 * The stand-in's answers against the indexer's own description: comlink's `public/swagger.json` in
 * dydxprotocol/v4-chain at commit 84d4664 (its `components.schemas` for the five operations `sources/dydx` sends,
 * kept verbatim in test/fixtures/dydx/), as closed objects: every required field, its type and enum, no field the
 * description does not name. One deviation of the description from the service it describes, followed here as the
 * service does: `CandleResponseObject` lists `id` as required, but comlink's `candleToResponseObject` omits it
 * (`_.omit(candle, [CandleColumns.id])`, `request-transformer.ts`), so no candle the indexer sends has one.
 */
const DOC = 'https://github.com/dydxprotocol/v4-chain/blob/84d4664/indexer/services/comlink/public/swagger.json';
const schemas = structuredClone(swagger.components.schemas) as Record<string, Record<string, unknown>>;
schemas.CandleResponseObject!.required = (schemas.CandleResponseObject!.required as string[]).filter((r) => r !== 'id');
const defs = openApi30ToJsonSchema(schemas as never, DOC);
const validator = conformance({ [DOC]: { $defs: defs } as never });

const clock = new TestClock(Date.UTC(2026, 10, 20, 14, 30, 0));
let standin: DydxStandin;
let prices: ReferencePrices;
beforeAll(async () => {
  prices = syntheticReferencePrices(
    7,
    clock,
    (dayOf(clock.nowMs()) - 3) * (DAY_MS / 1000),
    Object.fromEntries(TOKEN_PLAN.map((t) => [t.symbol, t.initialPriceUsd])),
  );
  standin = await startDydxStandin({ seed: 7, clock, prices });
});
afterAll(async () => standin?.close());

async function get(path: string) {
  const res = await fetch(`${standin.url}${path}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown[]> };
}

describe('the dYdX stand-in against comlink’s swagger.json', () => {
  it.each([
    ['/v4/perpetualMarkets', 'PerpetualMarketResponse'],
    ['/v4/perpetualMarkets?ticker=ETH-USD', 'PerpetualMarketResponse'],
    ['/v4/candles/perpetualMarkets/BTC-USD?resolution=1DAY', 'CandleResponse'],
    ['/v4/candles/perpetualMarkets/PEPE-USD?resolution=15MINS&limit=200', 'CandleResponse'],
    ['/v4/historicalFunding/SOL-USD?limit=100', 'HistoricalFundingResponse'],
    ['/v4/trades/perpetualMarket/ETH-USD?limit=500', 'TradeResponse'],
    ['/v4/height', 'HeightResponse'],
  ])('%s answers a %s', async (path, schema) => {
    const { status, body } = await get(path);
    expect(status).toBe(200);
    expect(validator.errors(`${DOC}#/$defs/${schema}`, body)).toEqual([]);
    const items = Object.values(body)[0]!;
    expect(Array.isArray(items) ? items.length : Object.keys(items).length).toBeGreaterThan(0);
  });

  it('orders as the indexer does: candles, funding and trades newest first; trades by height', async () => {
    const candles = (await get('/v4/candles/perpetualMarkets/BTC-USD?resolution=1HOUR&limit=30')).body.candles as {
      startedAt: string;
    }[];
    expect(candles).toHaveLength(30);
    expect(candles.map((c) => c.startedAt)).toEqual(
      candles
        .map((c) => c.startedAt)
        .sort()
        .reverse(),
    );
    const trades = (await get('/v4/trades/perpetualMarket/BTC-USD?limit=300')).body.trades as {
      createdAtHeight: string;
    }[];
    const heights = trades.map((t) => Number(t.createdAtHeight));
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
    const funding = (await get('/v4/historicalFunding/BTC-USD?limit=5')).body.historicalFunding as {
      effectiveAt: string;
    }[];
    expect(funding.map((f) => Date.parse(f.effectiveAt) % 3_600_000)).toEqual([0, 0, 0, 0, 0]);
  });

  it('answers bad parameters and unknown tickers as express-validator 6 does, and limits as comlink', async () => {
    expect(await get('/v4/trades/perpetualMarket/NOPE-USD')).toMatchObject({
      status: 400,
      body: {
        errors: [
          {
            value: 'NOPE-USD',
            msg: 'ticker must be a valid ticker (BTC-USD, etc)',
            param: 'ticker',
            location: 'params',
          },
        ],
      },
    });
    expect((await get('/v4/historicalFunding/BTC-USD?limit=1001')).body).toEqual({
      errors: [
        {
          value: '1001',
          msg: 'limit must be a positive integer that is not greater than max: 1000',
          param: 'limit',
          location: 'query',
        },
      ],
    });
    expect((await get('/v4/candles/perpetualMarkets/BTC-USD')).status).toBe(400);
    const limited = await startDydxStandin({
      seed: 7,
      clock,
      prices,
      rateLimit: { anonymousLimit: 1 },
    });
    try {
      expect((await fetch(`${limited.url}/v4/height`)).status).toBe(200);
      const res = await fetch(`${limited.url}/v4/height`);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ errors: [{ msg: 'Too many requests' }] });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(1000);
      expect(res.headers.get('ratelimit-limit')).toBe('1');
    } finally {
      await limited.close();
    }
  });
});
