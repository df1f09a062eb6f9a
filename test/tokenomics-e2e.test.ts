import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { DexReadModel } from '../src/areas/dex/public.js';
import { tokenomicsArea } from '../src/areas/tokenomics/index.js';
import { TokenomicsRepository } from '../src/areas/tokenomics/repo.js';
import { tokenomicsTargets } from '../src/areas/tokenomics/targets.js';
import {
  type CoingeckoStandin,
  SANDBOX_COINGECKO_KEY,
  startCoingeckoStandin,
} from '../src/sandbox/standins/coingecko/server.js';
import { CEX_VENUES } from '../src/sandbox/standins/coingecko/world.js';
import { CoingeckoClient } from '../src/sources/coingecko/client.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';
import { tokenSwapsFromChain } from './support/tokenomics-dex-truth.js';
import {
  balanceOfAt,
  balancesAt,
  concentrationOf,
  lockedAt,
  poolsPairing,
  totalSupplyAt,
} from './support/tokenomics-truth.js';

/**
 * End to end on a small seeded world: sandbox chain → holder ledger and snapshots → compute → API. The holder
 * figures of a record are recounted at the record's own block from the chain's `Transfer` logs alone
 * (test/support/tokenomics-truth.ts), raw and without the labelled addresses the record lists. Market figures come
 * from the sandbox's CoinGecko stand-in and are recounted from its world (src/sandbox/standins/coingecko/world.ts).
 * The labels the ex-infrastructure figures leave out are taken from independent sources: the address book's labels of
 * the protocol and every pool the book's DEX factories created with the token (their own creation logs), which must
 * be exactly the labels the record lists. Each venue's `held` is recounted from the book's exchange wallets that name
 * it (the sandbox's `sandbox_binance-hot-1`, …) and their `balanceOf` at the record's block.
 */

interface Rec {
  date: string;
  partial: boolean;
  as_of: string;
  token_address: string;
  block_number: number | null;
  dust_threshold: number;
  gap_reason: string | null;
  coingecko_id: string | null;
  gap_reasons?: Record<string, string>;
  tokenomics_metrics: Record<string, number | null> | null;
  breakdown: {
    labels: { address: string; category: string; source: string }[];
    categories: Record<string, { amount_raw: string; share: number | null; addresses: number }>;
    unlabelled: { amount_raw: string; share: number | null; addresses: number };
  } | null;
  supply_metrics: Record<string, unknown> | null;
  exchange_metrics: {
    cex_volume: number | null;
    dex_volume_onchain_usd: number | null;
    gap_reasons: Record<string, string>;
    exchanges: Venue[] | null;
  } | null;
}

interface Venue {
  exchange_id: string;
  exchange_name: string;
  held: number | null;
  market_cap_held_usd: number | null;
  wallets: string[];
  gap_reasons: Record<string, string>;
}

const close = (actual: number | null | undefined, expected: number, what: string) => {
  expect(actual, what).not.toBeNull();
  expect(Math.abs(actual! - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    1e-9 * Math.max(1, Math.abs(expected)),
  );
};

describe('tokenomics end to end on the sandbox', () => {
  let w: TestWorld;
  let t: TestApp;
  let standin: CoingeckoStandin;
  /** The instant the market job fetched at: the newest UNI snapshot's (a reading stands for instants at or after it). */
  let fetchedAtMs: number;

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as { data: T; meta: Record<string, unknown> };
  };

  beforeAll(async () => {
    w = await smallWorld({ days: 3 });
    t = await testApp();
    // The DEX area first (tokenomics reads its swaps and prices for the on-chain DEX volume), as the runtime orders them.
    await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
    standin = await startCoingeckoStandin({
      seed: 7,
      clock: t.clock,
      world: Promise.resolve(w.world.view()),
      rpcUrl: Promise.resolve(w.world.rpcUrl),
      pollMs: 600_000,
    });
    await standin.refresh();
    // The process's one CoinGecko client, unpaced (the stand-in's limit is far above a run's requests).
    const client = new CoingeckoClient({ baseUrl: standin.url, apiKey: SANDBOX_COINGECKO_KEY, minIntervalMs: 0 });
    const env = {
      ...w.env,
      sources: w.env.sources.with('coingecko', {
        client,
        baseUrl: client.baseUrl,
        plan: 'demo',
        source: 'sandbox:coingecko',
      }),
    };
    const runner = areaRunner(tokenomicsArea, env, t.store, t.clock, () => t.sync());
    expect(runner.jobs).toEqual(['tokenomics.ingest', 'tokenomics.market', 'tokenomics.compute']);
    await runner.run('tokenomics.ingest');
    // The market run at the newest snapshot's instant: the running day's record reads it.
    const uni = tokenomicsTargets(w.env).find((x) => x.protocol === 'uniswap')!;
    const times = await new TokenomicsRepository(t.store.db).snapshotTimes(uni.chain, uni.address);
    const now = t.clock.nowMs();
    fetchedAtMs = Math.max(...times.map((x) => x.timestamp)) * 1000;
    t.clock.ms = fetchedAtMs;
    await runner.run('tokenomics.market');
    t.clock.ms = now;
    await runner.run('tokenomics.compute');
    await t.sync();
  }, 240_000);

  afterAll(async () => {
    await standin?.close();
    await t?.close();
    await w?.close();
  });

  it('serves 7 daily records per token, newest first, the running day partial, each naming its token and block', async () => {
    const res = await get<Rec[]>('/data/tokenomics/uniswap');
    expect(res.data).toHaveLength(7);
    expect(res.data[0]!.partial).toBe(true);
    expect(res.data.slice(1).every((r) => !r.partial)).toBe(true);
    const dates = res.data.map((r) => r.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(res.data[0]!.token_address).toBe(w.env.book.chains.ethereum!.tokens.UNI!.address);
    expect(res.data[0]!.block_number).toBeGreaterThan(0);
    expect(res.meta.methodology).toBe('tokenomics.figures@1.1.0');
    // The token's own chain, not every chain the process reads.
    expect(res.meta.source).toBe('sandbox:ethereum:31337');
    // The world is 3 days old: the days before it are gaps that say why.
    expect(res.data.filter((r) => r.gap_reason === 'not_deployed').length).toBeGreaterThanOrEqual(3);
    const one = await get<Rec[]>('/data/tokenomics/metrics/uniswap');
    expect(one.data.map((r) => r.tokenomics_metrics)).toEqual(res.data.map((r) => r.tokenomics_metrics));
    expect(one.data[0]).not.toHaveProperty('supply_metrics');
  });

  it('holder figures equal a replay of the chain’s Transfer logs at the record’s block, raw and ex-infrastructure', async () => {
    for (const protocol of ['uniswap', 'aave', 'chainlink']) {
      const res = await get<Rec[]>(`/data/tokenomics/${protocol}`);
      const recorded = res.data.filter((r) => r.block_number !== null);
      expect(recorded.length, protocol).toBeGreaterThanOrEqual(2);
      for (const r of recorded.slice(0, 2)) {
        const token = r.token_address;
        const balances = await balancesAt(w.world.rpcUrl, token, r.block_number!);
        const supply = await totalSupplyAt(w.world.rpcUrl, token, r.block_number!);
        const dust = BigInt(Math.round(r.dust_threshold * 1e18));
        const m = r.tokenomics_metrics!;
        const raw = concentrationOf(balances, 18, dust, supply);
        const what = `${protocol} ${r.date}`;
        expect(m.num_token_holders, what).toBe(raw.holders);
        close(m.largest_holder, raw.largest, `${what} largest`);
        close(m.top5_concentration, raw.top5, `${what} top5`);
        close(m.top10_concentration, raw.top10, `${what} top10`);
        close(m.gini_coeff, raw.gini, `${what} gini`);
        close(m.hhi, raw.hhi, `${what} hhi`);
        expect(m.nakamoto_coefficient, what).toBe(raw.nakamoto);
        // Labelled infrastructure from independent sources: the book's labels of the protocol, and the pools the
        // book's DEX factories created with the token (their creation logs, not the DEX area's tables).
        const entries = Object.entries(w.env.book.chains.ethereum!.entries);
        const booked = entries.filter(([k]) => k.split('/').length === 5 && k.startsWith(`tokenomics/${protocol}/`));
        const factories = entries.filter(([k]) => k.startsWith('dex/')).map(([, e]) => e.address);
        const pools = await poolsPairing(w.world.rpcUrl, factories, token, r.block_number!);
        expect(pools.size, `${what}: pools pairing the token`).toBeGreaterThan(0);
        const excluded = new Set([...booked.map(([, e]) => e.address), ...pools]);
        expect(new Set(r.breakdown!.labels.map((l) => l.address)), what).toEqual(excluded);
        const poolLabels = r.breakdown!.labels.filter((l) => pools.has(l.address));
        expect(
          poolLabels.every((l) => l.category === 'contracts' && l.source.startsWith('dex:')),
          what,
        ).toBe(true);
        // Each breakdown category from the same independent sources: a book entry's category is the key's
        // (tokenomics/<protocol>/<category>/…), grouped as the methodology's breakdown groups them; a pool is a
        // contract; amounts are the replayed balances at the record's block.
        const GROUP: Record<string, string> = {
          team: 'team',
          advisors: 'team',
          investors: 'investors',
          treasury: 'treasury',
          community: 'community',
          exchange: 'exchanges',
          dex_pool: 'contracts',
          bridge: 'contracts',
          burn: 'other',
        };
        const groupOf = new Map<string, string>([...pools].map((a) => [a, 'contracts']));
        for (const [key, e] of booked) if (!groupOf.has(e.address)) groupOf.set(e.address, GROUP[key.split('/')[2]!]!);
        const expected = new Map<string, { amount: bigint; addresses: number }>();
        for (const [address, group] of groupOf) {
          const c = expected.get(group) ?? { amount: 0n, addresses: 0 };
          c.amount += balances.get(address) ?? 0n;
          c.addresses++;
          expected.set(group, c);
        }
        const b = r.breakdown!;
        expect(Object.keys(b.categories).sort(), what).toEqual([
          'community',
          'contracts',
          'exchanges',
          'investors',
          'other',
          'team',
          'treasury',
        ]);
        for (const group of expected.keys()) expect(Object.keys(b.categories), `${what}: ${group}`).toContain(group);
        let labelled = 0n;
        for (const [group, got] of Object.entries(b.categories)) {
          const want = expected.get(group) ?? { amount: 0n, addresses: 0 };
          labelled += want.amount;
          expect(got.amount_raw, `${what} ${group} amount`).toBe(want.amount.toString());
          expect(got.addresses, `${what} ${group} addresses`).toBe(want.addresses);
          close(got.share, Number((want.amount * 10n ** 12n) / supply) / 1e10, `${what} ${group} share`);
        }
        expect(b.unlabelled.amount_raw, `${what} unlabelled`).toBe((supply - labelled).toString());
        close(b.unlabelled.share, Number(((supply - labelled) * 10n ** 12n) / supply) / 1e10, `${what} unlabelled %`);
        // The categories that hold something in this world: not a check of zeros alone.
        for (const group of ['team', 'investors', 'treasury', 'exchanges', 'contracts'])
          expect(expected.get(group)?.amount ?? 0n, `${what}: ${group} holds tokens`).toBeGreaterThan(0n);
        const ex = concentrationOf(balances, 18, dust, supply, excluded);
        expect(m.num_token_holders_ex_infrastructure, what).toBe(ex.holders);
        expect(b.unlabelled.addresses, `${what} unlabelled holders`).toBe(ex.holders);
        close(m.top5_concentration_ex_infrastructure, ex.top5, `${what} top5 ex`);
        close(m.gini_coeff_ex_infrastructure, ex.gini, `${what} gini ex`);
        close(m.hhi_ex_infrastructure, ex.hhi, `${what} hhi ex`);
        expect(m.nakamoto_coefficient_ex_infrastructure, what).toBe(ex.nakamoto);
      }
    }
  });

  it('locked supply equals what the vesting contracts lock by their own views at the record’s block', async () => {
    const entries = Object.entries(w.env.book.chains.ethereum!.entries);
    for (const protocol of ['uniswap', 'aave', 'chainlink']) {
      const res = await get<Rec[]>(`/data/tokenomics/${protocol}`);
      const vesting = entries.flatMap(([key, e]) => {
        const [, p, , kind] = key.split('/');
        return p === protocol && ['treasury_vester', 'vesting_wallet', 'token_timelock'].includes(kind!)
          ? [{ address: e.address, kind: kind! }]
          : [];
      });
      expect(vesting.length, protocol).toBeGreaterThan(0);
      for (const r of res.data.filter((x) => x.block_number !== null).slice(0, 2)) {
        let locked = 0n;
        for (const v of vesting) {
          locked += await lockedAt(w.world.rpcUrl, r.token_address, v.address, v.kind, r.block_number!);
        }
        expect(r.supply_metrics!.locked_supply_raw, `${protocol} ${r.date}`).toBe(locked.toString());
      }
    }
  });

  it('price and CEX volume equal a recount from the CoinGecko stand-in’s own world', async () => {
    const market = standin.market()!;
    const hour = standin.quotedHour(fetchedAtMs)!;
    expect(hour).toBeDefined();
    const cex = new Set(CEX_VENUES.map((v) => v.id));
    for (const [protocol, id] of [
      ['uniswap', 'uniswap'],
      ['aave', 'aave'],
      ['chainlink', 'chainlink'],
    ] as const) {
      const res = await get<(Rec & { tokenomics_metrics: { price: number | null } | null })[]>(
        `/data/tokenomics/${protocol}`,
      );
      const r = res.data[0]!;
      expect(r.coingecko_id, protocol).toBe(id);
      const coin = market.coin(id)!;
      // The world's reference price of the quoted hour.
      close(r.tokenomics_metrics!.price, market.price(coin.priceSymbol, hour), `${protocol} price`);
      // CEX volume: Σ converted_volume.usd of the kept (neither anomalous nor stale) tickers on centralized venues.
      const tickers = market.tickers(coin, hour);
      const recount = tickers
        .filter((x) => cex.has(x.market.identifier) && !x.is_anomaly && !x.is_stale)
        .reduce((sum, x) => sum + x.converted_volume.usd, 0);
      expect(recount, protocol).toBeGreaterThan(0);
      expect(tickers.some((x) => x.is_anomaly) && tickers.some((x) => x.is_stale), protocol).toBe(true);
      close(r.exchange_metrics!.cex_volume, recount, `${protocol} CEX volume`);
      // Past days before the market job's first reading: null with a reason, never 0.
      const past = res.data.find((x) => x.block_number !== null && x !== r);
      if (past) {
        expect(past.tokenomics_metrics!.price, protocol).toBeNull();
        // The exchanges group stays for the on-chain DEX volume; its ticker figures are null.
        expect(past.exchange_metrics?.cex_volume ?? null, protocol).toBeNull();
      }
    }
  });

  /**
   * A venue's `held`: the book's exchange labels of the token's protocol that name the venue by the methodology's rule
   * (its identifier or name, or identifier-dash-slug, case-insensitive; written out here, not the area's function),
   * each wallet's `balanceOf` at the record's block from the node. A venue no label names holds an unknown amount.
   */
  it('each venue’s held equals its labelled wallets’ balanceOf at the record’s block; a venue none names is no_members', async () => {
    const entries = Object.entries(w.env.book.chains.ethereum!.entries);
    const names = (label: string, v: Venue) => {
      const l = label.trim().toLowerCase();
      const id = v.exchange_id.toLowerCase();
      return l === id || l === v.exchange_name.toLowerCase() || l.startsWith(`${id}-`);
    };
    let held = 0;
    let unnamed = 0;
    for (const protocol of ['uniswap', 'aave', 'chainlink']) {
      const wallets = entries.flatMap(([key, e]) => {
        const [root, p, category, , label] = key.split('/');
        return root === 'tokenomics' && p === protocol && category === 'exchange'
          ? [{ label: label!, address: e.address }]
          : [];
      });
      expect(wallets.length, protocol).toBe(3);
      const res = await get<(Rec & { tokenomics_metrics: { price: number | null } | null })[]>(
        `/data/tokenomics/${protocol}`,
      );
      const withVenues = res.data.filter((r) => r.exchange_metrics?.exchanges?.length);
      expect(withVenues.length, protocol).toBeGreaterThan(0);
      for (const r of withVenues) {
        const price = r.tokenomics_metrics!.price;
        for (const v of r.exchange_metrics!.exchanges!) {
          const what = `${protocol} ${r.date} ${v.exchange_id}`;
          const mine = wallets.filter((x) => names(x.label, v));
          if (!mine.length) {
            expect(v.held, what).toBeNull();
            expect(v.gap_reasons.held, what).toBe('no_members');
            expect(v.market_cap_held_usd, what).toBeNull();
            expect(v.wallets, what).toEqual([]);
            unnamed++;
            continue;
          }
          let raw = 0n;
          for (const x of mine) raw += await balanceOfAt(w.world.rpcUrl, r.token_address, x.address, r.block_number!);
          expect(raw, `${what}: its wallets hold some`).toBeGreaterThan(0n);
          const E18 = 10n ** 18n;
          const expected = Number(raw / E18) + Number(raw % E18) / 1e18;
          close(v.held, expected, `${what} held`);
          expect(new Set(v.wallets), what).toEqual(new Set(mine.map((x) => x.address)));
          if (price === null) expect(v.market_cap_held_usd, what).toBeNull();
          else close(v.market_cap_held_usd, expected * price, `${what} market cap held`);
          held++;
        }
      }
    }
    // Not vacuous: venues the sandbox's wallets name, and venues they do not.
    expect(held).toBeGreaterThan(0);
    expect(unnamed).toBeGreaterThan(0);
  });

  /**
   * The swaps are recounted from the chain alone (the factories' creation events, the pools' Swap logs, the blocks'
   * times) and valued here by the methodology's rule (the input side × its USD price of the swap's hour, else the
   * output side). The prices are the DEX area's hourly USD prices as its price job stored them, the price the
   * methodology names: recomputing the DEX price policy (anchors, pool medians, confidence) independently is a test of
   * the DEX area of its own (src/areas/dex/prices.test.ts, test/dex-e2e.test.ts), not repeated here.
   */
  it('the on-chain DEX volume equals the chain’s swaps of the token’s pools over the 24 hours, valued at the hour’s price', async () => {
    const factories = w.world.manifest.dex.map((d) => ({ factory: d.factory, design: d.design }));
    const dex = new DexReadModel(t.store.db);
    let traded = 0;
    for (const protocol of ['uniswap', 'aave', 'chainlink']) {
      const res = await get<Rec[]>(`/data/tokenomics/${protocol}`);
      for (const r of res.data.filter((x) => x.block_number !== null).slice(0, 2)) {
        const what = `${protocol} ${r.date}`;
        const asOf = Date.parse(r.as_of) / 1000;
        const truth = await tokenSwapsFromChain(w.world.rpcUrl, factories, r.token_address, {
          blockNumber: r.block_number!,
          asOf,
        });
        expect(truth.pools, what).toBeGreaterThan(0);
        const prices = new Map(
          (await dex.prices('ethereum', asOf - 2 * 86_400, asOf)).map((p) => [`${p.token}/${p.hour}`, p.priceUsd]),
        );
        let expected: number | null = 0;
        for (const s of truth.swaps) {
          const hour = s.timestamp - (s.timestamp % 3600);
          const sides = [
            { token: s.token0, amount: s.amount0, decimals: s.decimals0 },
            { token: s.token1, amount: s.amount1, decimals: s.decimals1 },
          ];
          if (s.amount0 <= 0n && s.amount1 > 0n) sides.reverse();
          const side = sides.find((x) => prices.has(`${x.token}/${hour}`));
          if (!side) {
            expected = null;
            break;
          }
          const abs = side.amount < 0n ? -side.amount : side.amount;
          const scale = 10n ** BigInt(side.decimals);
          expected! +=
            (Number(abs / scale) + Number(abs % scale) / Number(scale)) * prices.get(`${side.token}/${hour}`)!;
        }
        const e = r.exchange_metrics!;
        if (expected === null) {
          expect(e.dex_volume_onchain_usd, what).toBeNull();
          expect(e.gap_reasons.dex_volume_onchain_usd, what).toBe('no_price');
        } else {
          close(e.dex_volume_onchain_usd, expected, `${what} dex volume`);
          if (truth.swaps.length) traded++;
        }
      }
    }
    // The recount is not vacuous: some records' 24 hours have priced swaps.
    expect(traded).toBeGreaterThan(0);
  });
});
