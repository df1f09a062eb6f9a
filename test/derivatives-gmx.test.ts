import { parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import { gmxAbi } from '../src/sandbox/protocols/gmx/deploy.js';
import { GMX_KEYS } from '../src/sandbox/protocols/gmx/keys.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import {
  addressItem,
  boolItem,
  type ChainEvent,
  fixed,
  GmxTruth,
  marketSide,
  oiKey,
  uintItem,
} from './support/gmx-truth.js';
import { type GmxTestWorld, gmxWorld } from './support/gmx-world.js';

/**
 * GMX v2 end to end on the sandbox (issue 27): the Arbitrum chain's own GMX contracts → `derivatives.gmx.ingest`,
 * `.snapshot`, `.compute` → the API. The key figures are recomputed from the chain alone (test/support/gmx-truth.ts:
 * the EventEmitter's logs through viem, decoded with the contract's ABI by key name, and the DataStore's keys):
 * open interest per market, collateral and side replayed from the `OpenInterestUpdated` and
 * `OpenInterestInTokensUpdated` deltas equals the DataStore at each record's block (and, at the head, a second replay
 * from the positions' size deltas) and what the pair and protocol records serve (a single-token market's two
 * collateral keys halved, as GMX reads them); a whole day's volume, trade count and liquidations from the position
 * events; a whole day's fees and their parts from `PositionFeesCollected` (each amount × the event's
 * `collateralTokenPrice.min`); the funding rate from the `Funding` events, its side from the replayed open interest.
 * Counts exact, amounts within 1e-9 relative.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string };
}
type Row = Record<string, unknown> & {
  date: string;
  as_of: string;
  funding?: { rate_1h_last: number | null };
  funding_rate_history?: { time: string; rate_1h: number }[];
};

const FLOAT = 30;
const relClose = (actual: unknown, expected: number, label: string) => {
  expect(typeof actual, label).toBe('number');
  const a = actual as number;
  if (expected === 0) expect(a, label).toBe(0);
  else expect(Math.abs(a - expected) / Math.abs(expected), `${label}: ${a} vs ${expected}`).toBeLessThan(1e-9);
};

describe('GMX v2 end to end on the sandbox', () => {
  let w: GmxTestWorld;
  let t: TestApp;
  let truth: GmxTruth;
  let protocol: Row[];
  let eth: Row[];
  let block: number;

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };
  const dayOf = (e: ChainEvent) => new Date(e.timestamp * 1000).toISOString().slice(0, 10);
  const index = (symbol: string) => w.section.tokens.find((x) => x.symbol === symbol)!;
  /** The oracle's midpoint at the record's block, USD per whole token. */
  const midAt = (symbol: string, at: number) => {
    const tk = index(symbol);
    const p = truth.oraclePrice(tk.address.toLowerCase(), at);
    return fixed((p.min + p.max) * 10n ** BigInt(tk.decimals), FLOAT) / 2;
  };
  /** Replayed open interest of a set of markets and a side at the end of block `at`, in whole index tokens. */
  const replayedTokens = (markets: typeof w.section.markets, isLong: boolean, decimals: number, at = block) => {
    const oi = truth.replayOpenInterest(at);
    return fixed(
      markets.reduce((a, m) => a + marketSide(oi, m, isLong).tokens, 0n),
      decimals,
    );
  };
  /** The blocks the records' states were read at, by record index. */
  const recordBlocks = () =>
    protocol.flatMap((day, i) => (day.block_number === null ? [] : [{ i, at: day.block_number as number }]));

  beforeAll(async () => {
    w = await gmxWorld();
    t = await testApp();
    t.clock.ms = w.clock.ms;
    const jobs = areaRunner(derivativesArea, w.env, t.store, t.clock, () => t.sync());
    for (const job of ['derivatives.gmx.ingest', 'derivatives.gmx.snapshot', 'derivatives.gmx.compute']) {
      await jobs.run(job);
    }
    await t.sync();
    truth = await GmxTruth.read(w.chain.anvilUrl, w.section);
    protocol = (await get<Row[]>('/data/derivatives/gmx')).data;
    eth = (await get<Row[]>('/data/derivatives/gmx/ETH-USD')).data;
    block = protocol[0]!.block_number as number;
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  it('serves 7 records read at the chain’s head, naming the contracts read', () => {
    expect(protocol).toHaveLength(7);
    expect(eth).toHaveLength(7);
    expect(block).toBe(truth.head);
    expect(protocol[0]).toMatchObject({
      event_emitter_address: w.section.eventEmitter.toLowerCase(),
      data_store_address: w.section.dataStore.toLowerCase(),
      oi_convention: 'pool_long_plus_short',
      partial: true,
    });
  });

  it('lists both WETH-indexed markets under ETH-USD, and the synthetic BTC market (named by the keeper) under BTC-USD', async () => {
    const listing = await get<{ markets: { pair: string; markets: { market_address: string }[] }[] }>(
      '/data/derivatives/gmx/pairs',
    );
    const ethMarkets = listing.data.markets.find((p) => p.pair === 'ETH-USD')!.markets.map((m) => m.market_address);
    const expected = truth.marketsOn(index('WETH').address.toLowerCase()).map((m) => m.marketToken.toLowerCase());
    expect(expected).toHaveLength(2);
    expect(ethMarkets.sort()).toEqual(expected.sort());
    const btc = index('BTC');
    expect(btc.synthetic).toBe(true);
    expect(listing.data.markets.find((p) => p.pair === 'BTC-USD')!.markets.map((m) => m.market_address)).toEqual(
      truth.marketsOn(btc.address.toLowerCase()).map((m) => m.marketToken.toLowerCase()),
    );
    const btcDay = (await get<Row[]>('/data/derivatives/gmx/BTC-USD')).data[0]!;
    const markets = truth.marketsOn(btc.address.toLowerCase());
    relClose(btcDay.long_open_interest_tokens, replayedTokens(markets, true, btc.decimals), 'BTC long tokens');
    relClose(btcDay.short_open_interest_tokens, replayedTokens(markets, false, btc.decimals), 'BTC short tokens');
  });

  it('open interest per market, collateral and side: the replay of OpenInterestUpdated deltas equals the DataStore at each record’s block', async () => {
    const blocks = recordBlocks();
    expect(blocks.map((b) => b.at)).toContain(block);
    let nonZero = 0;
    for (const { at } of blocks) {
      const oi = truth.replayOpenInterest(at);
      // The second replay (the positions' size deltas) at the head only: the same figures from other events.
      const sizes = at === block ? truth.replayPositionSizes(at) : undefined;
      for (const m of w.section.markets) {
        for (const c of new Set([m.longToken, m.shortToken])) {
          for (const isLong of [true, false]) {
            const key = oiKey(m.marketToken, c, isLong);
            const stored = await truth.storedOpenInterest(m.marketToken, c, isLong, at);
            expect(stored.tokens, `${m.name} ${key} tokens @${at}`).toBe(oi.get(key)?.tokens ?? 0n);
            expect(stored.usd, `${m.name} ${key} usd @${at}`).toBe(oi.get(key)?.usd ?? 0n);
            if (sizes) {
              expect(sizes.get(key)?.tokens ?? 0n, `${m.name} ${key} size replay tokens`).toBe(stored.tokens);
              expect(sizes.get(key)?.usd ?? 0n, `${m.name} ${key} size replay usd`).toBe(stored.usd);
              if (stored.tokens > 0n) nonZero++;
            }
          }
        }
      }
    }
    expect(nonZero, 'open positions at the head').toBeGreaterThan(3);
  });

  it('ETH-USD serves each record’s replayed open interest in tokens at its block (the single-token market halved)', () => {
    const weth = index('WETH');
    const markets = truth.marketsOn(weth.address.toLowerCase());
    expect(markets.some((m) => m.longToken.toLowerCase() === m.shortToken.toLowerCase())).toBe(true);
    const blocks = recordBlocks();
    expect(blocks.length).toBe(3);
    for (const { i, at } of blocks) {
      relClose(
        eth[i]!.long_open_interest_tokens,
        replayedTokens(markets, true, weth.decimals, at),
        `${eth[i]!.date} long`,
      );
      relClose(
        eth[i]!.short_open_interest_tokens,
        replayedTokens(markets, false, weth.decimals, at),
        `${eth[i]!.date} short`,
      );
    }
  });

  it('ETH-USD serves the replayed open interest of both WETH markets (the single-token market once), at the oracle’s midpoint', () => {
    const weth = index('WETH');
    const markets = truth.marketsOn(weth.address.toLowerCase());
    const day = eth[0]!;
    const long = replayedTokens(markets, true, weth.decimals);
    const short = replayedTokens(markets, false, weth.decimals);
    expect(long + short).toBeGreaterThan(0);
    relClose(day.long_open_interest_tokens, long, 'long tokens');
    relClose(day.short_open_interest_tokens, short, 'short tokens');
    const mid = midAt('WETH', block);
    relClose(day.index_price, mid, 'index price');
    relClose(day.long_open_interest_usd, long * mid, 'long USD');
    relClose(day.short_open_interest_usd, short * mid, 'short USD');
    relClose(day.open_interest_usd, (long + short) * mid, 'open interest USD');
  });

  it('each day’s index price is the oracle’s midpoint at the block its state was read at', async () => {
    const btc = (await get<Row[]>('/data/derivatives/gmx/BTC-USD')).data;
    let checked = 0;
    protocol.forEach((day, i) => {
      const at = day.block_number as number | null;
      if (at === null) return;
      relClose(eth[i]!.index_price, midAt('WETH', at), `ETH-USD ${day.date} @${at}`);
      relClose(btc[i]!.index_price, midAt('BTC', at), `BTC-USD ${day.date} @${at}`);
      checked++;
    });
    expect(checked).toBe(3);
  });

  it('the protocol’s open interest is every market’s, the synthetic BTC market included (long + short)', () => {
    let long = 0;
    let short = 0;
    for (const tk of w.section.tokens) {
      const markets = truth.marketsOn(tk.address.toLowerCase());
      if (!markets.length) continue;
      const mid = midAt(tk.symbol, block);
      long += replayedTokens(markets, true, tk.decimals) * mid;
      short += replayedTokens(markets, false, tk.decimals) * mid;
    }
    const day = protocol[0]!;
    relClose(day.long_open_interest_usd, long, 'protocol long USD');
    relClose(day.short_open_interest_usd, short, 'protocol short USD');
    relClose(day.open_interest_usd, long + short, 'protocol open interest USD');
  });

  it('TVL is the long and short tokens the market tokens hold (pool and positions’ collateral), at the oracle’s midpoints', async () => {
    const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
    let tvl = 0;
    let collateral = 0n;
    for (const m of w.section.markets) {
      for (const token of new Set([m.longToken, m.shortToken])) {
        const tk = w.section.tokens.find((x) => x.address.toLowerCase() === token.toLowerCase())!;
        const held = (await truth.client.readContract({
          address: token,
          abi: erc20,
          functionName: 'balanceOf',
          args: [m.marketToken],
          blockNumber: BigInt(block),
        })) as bigint;
        const pool = (await truth.client.readContract({
          address: w.section.dataStore,
          abi: gmxAbi,
          functionName: 'getUint',
          args: [GMX_KEYS.poolAmount(m.marketToken, token)],
          blockNumber: BigInt(block),
        })) as bigint;
        collateral += held - pool;
        tvl += fixed(held, tk.decimals) * midAt(tk.symbol, block);
      }
    }
    expect(collateral, 'the market tokens hold the positions’ collateral beside their pools').toBeGreaterThan(0n);
    relClose(protocol[0]!.tvl_usd, tvl, 'protocol TVL');
  });

  it('a whole day’s volume, trades and liquidations equal the day’s position events', () => {
    const date = protocol[1]!.date;
    expect(eth[1]!.date).toBe(date);
    const ofDay = truth.positions().filter((e) => dayOf(e) === date);
    const wethMarkets = new Set(
      truth.marketsOn(index('WETH').address.toLowerCase()).map((m) => m.marketToken.toLowerCase()),
    );
    const sums = (events: ChainEvent[]) => ({
      volume: fixed(
        events.reduce((a, e) => a + uintItem(e, 'sizeDeltaUsd'), 0n),
        FLOAT,
      ),
      trades: events.length,
      liquidations: events.filter((e) => e.name === 'PositionDecrease' && uintItem(e, 'orderType') === 7n).length,
      traders: new Set(events.map((e) => addressItem(e, 'account'))).size,
    });
    const all = sums(ofDay);
    const ethDay = sums(ofDay.filter((e) => wethMarkets.has(addressItem(e, 'market'))));
    expect(all.liquidations, 'the crash liquidates that day').toBeGreaterThan(0);
    expect(ethDay.trades).toBeLessThan(all.trades);
    relClose(eth[1]!.volume_usd, ethDay.volume, 'ETH-USD volume');
    expect(eth[1]!.trade_count).toBe(ethDay.trades);
    expect(eth[1]!.liquidation_count).toBe(ethDay.liquidations);
    expect(eth[1]!.unique_traders).toBe(ethDay.traders);
    relClose(protocol[1]!.volume_usd, all.volume, 'protocol volume');
    expect(protocol[1]!.trade_count).toBe(all.trades);
    expect(protocol[1]!.liquidation_count).toBe(all.liquidations);
    expect(protocol[1]!.unique_traders).toBe(all.traders);
  });

  it('a whole day’s fees and their parts equal the day’s PositionFeesCollected, amounts × the collateral’s minimum price', () => {
    const date = protocol[1]!.date;
    expect(eth[1]!.date).toBe(date);
    const ofDay = truth.events.filter((e) => e.name === 'PositionFeesCollected' && dayOf(e) === date);
    const wethMarkets = new Set(
      truth.marketsOn(index('WETH').address.toLowerCase()).map((m) => m.marketToken.toLowerCase()),
    );
    const check = (row: Row, events: ChainEvent[], label: string) => {
      const f = truth.fees(events);
      const parts = row.fees as Record<string, number | null>;
      relClose(row.fees_usd, fixed(f.total, FLOAT), `${label} fees_usd`);
      relClose(parts.position_usd, fixed(f.position, FLOAT), `${label} position`);
      relClose(parts.borrowing_usd, fixed(f.borrowing, FLOAT), `${label} borrowing`);
      relClose(parts.liquidation_usd, fixed(f.liquidation, FLOAT), `${label} liquidation`);
      expect(parts.swap_usd, `${label} swap`).toBeNull();
      return f;
    };
    const ethFees = check(
      eth[1]!,
      ofDay.filter((e) => wethMarkets.has(addressItem(e, 'market'))),
      'ETH-USD',
    );
    const all = check(protocol[1]!, ofDay, 'protocol');
    expect(ethFees.position > 0n && ethFees.borrowing > 0n, 'ETH-USD pays position and borrowing fees').toBe(true);
    expect(all.liquidation, 'the crash’s liquidations pay a liquidation fee').toBeGreaterThan(0n);
    expect(ethFees.total).toBeLessThan(all.total);
  });

  it('ETH-USD funding: each market’s last Funding factor × 3600, signed by the replayed open interest, weighted by open interest', () => {
    const weth = index('WETH');
    const markets = truth.marketsOn(weth.address.toLowerCase());
    const instant = Date.parse(eth[0]!.as_of) / 1000;
    const parts = markets.map((m) => {
      const market = m.marketToken.toLowerCase();
      const last = truth.events
        .filter((e) => e.name === 'Funding' && e.timestamp <= instant && addressItem(e, 'market') === market)
        .at(-1);
      expect(last, m.name).toBeDefined();
      const before = truth.replayOpenInterest(last!.block, last!);
      const side = (isLong: boolean) => marketSide(before, m, isLong).usd;
      const magnitude = fixed(uintItem(last!, 'fundingFactorPerSecond') * 3600n, FLOAT);
      const rate = side(true) > side(false) ? magnitude : -magnitude;
      const oi = truth.replayOpenInterest(block);
      const tokens = marketSide(oi, m, true).tokens + marketSide(oi, m, false).tokens;
      return { rate, weight: fixed(tokens, weth.decimals) };
    });
    const total = parts.reduce((a, p) => a + p.weight, 0);
    const weighted = parts.filter((p) => total === 0 || p.weight > 0);
    const expected =
      weighted.reduce((a, p) => a + p.rate * (total > 0 ? p.weight : 1), 0) /
      weighted.reduce((a, p) => a + (total > 0 ? p.weight : 1), 0);
    expect(parts.some((p) => p.rate !== 0)).toBe(true);
    relClose(eth[0]!.funding!.rate_1h_last, expected, 'rate_1h_last');
    expect(eth[0]!.funding_rate_history!.at(-1)!.rate_1h).toBe(eth[0]!.funding!.rate_1h_last);
    expect(
      truth.events.some((e) => e.name === 'FundingFeeAmountPerSizeUpdated' && boolItem(e, 'isLong') !== undefined),
    ).toBe(true);
  });
});
