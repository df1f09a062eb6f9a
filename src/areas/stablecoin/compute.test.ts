import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import type { PoolFact, PoolSnapshotFact, SyncFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import { computeStablecoin, type StablecoinInput, type StablecoinProtocolInput } from './compute.js';
import type { LiquitySnapshot, MakerClipperState, MakerIlkState, MakerSnapshot, StableEventFact } from './facts.js';
import { stablecoinDocuments } from './jobs.js';
import { liquityRedeemableWithin } from './liquity-figures.js';
import { CollateralsPayload, StableScoreHistory, StableScoreRecord, WeeklyRecord } from './schema.js';
import { WEIGHTS } from './score.js';

const E18 = 10n ** 18n;
const RAY = 10n ** 27n;
const DAY = 86_400;
const AS_OF = Date.UTC(2026, 10, 20, 12) / 1000;
const TODAY = AS_OF - 12 * 3600;

const DAI = '0x6b175474e89094c44da98b954eedeac495271d0f';
const LUSD = '0x5f98805a4e8be255a32880fdec7f6728c6568ba0';
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const RWA = '0x10b2aa5d77aa6484886d8e244f0686ab319a270d';
const VAT = '0x35d1b3f3d7966a1dfe207aa4514c12a259a0492b';
const PSM = '0x89b78cfa322f6c5de0abceecab66aee45393cc5a';
const TM = '0xa39739ef8b0231dbfa0dcda07d7e29faabcf4bb2';
const HOLDER_A = '0x00000000000000000000000000000000000000a1';
const HOLDER_B = '0x00000000000000000000000000000000000000b2';
const ZERO = '0x0000000000000000000000000000000000000000';

const tokens: TokenFact[] = [
  { chain: 'ethereum', address: DAI, symbol: 'DAI', name: 'Dai', decimals: 18 },
  { chain: 'ethereum', address: LUSD, symbol: 'LUSD', name: 'LUSD', decimals: 18 },
  { chain: 'ethereum', address: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
  { chain: 'ethereum', address: WETH, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 },
];

function pool(address: string, token0: string, token1: string): PoolFact {
  return {
    chain: 'ethereum',
    address,
    protocol: 'uniswap',
    version: 'V2',
    design: 'uniswap-v2',
    factory: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f',
    token0,
    token1,
    fee: 3000,
    tickSpacing: null,
    createdBlock: 1,
    createdAt: AS_OF - 30 * DAY,
  };
}

const pools = [
  pool('0x0000000000000000000000000000000000000d01', DAI, USDC),
  pool('0x0000000000000000000000000000000000000d02', WETH, USDC),
  pool('0x0000000000000000000000000000000000000d03', LUSD, USDC),
];
const reserves: Record<string, [bigint, bigint]> = {
  [pools[0]!.address]: [1_000_000n * E18, 1_000_000n * 10n ** 6n],
  [pools[1]!.address]: [1000n * E18, 2_000_000n * 10n ** 6n],
  [pools[2]!.address]: [500_000n * E18, 500_000n * 10n ** 6n],
};
const dexSnapshots: PoolSnapshotFact[] = pools.map((p) => ({
  chain: 'ethereum',
  pool: p.address,
  blockNumber: 1000,
  timestamp: AS_OF,
  reserve0: reserves[p.address]![0],
  reserve1: reserves[p.address]![1],
  sqrtPriceX96: null,
  liquidity: null,
  tick: null,
}));
// The reserves were the same since before the week: one Sync each, 9 days back.
const syncs: SyncFact[] = pools.map((p, i) => ({
  chain: 'ethereum',
  pool: p.address,
  blockNumber: 10,
  logIndex: i,
  reserve0: reserves[p.address]![0],
  reserve1: reserves[p.address]![1],
  timestamp: AS_OF - 9 * DAY,
}));
const prices: TokenPriceFact[] = [];
for (let h = Math.floor((AS_OF - 9 * DAY) / 3600) * 3600; h <= AS_OF; h += 3600) {
  prices.push({ chain: 'ethereum', token: USDC, hour: h, priceUsd: 1, source: 'anchor:USD', confidence: 1 });
  prices.push({ chain: 'ethereum', token: WETH, hour: h, priceUsd: 2000, source: 'pools:x', confidence: 0.9 });
}

function ilk(x: Partial<MakerIlkState> & Pick<MakerIlkState, 'ilk' | 'gem' | 'Art'>): MakerIlkState {
  return {
    name: x.ilk,
    symbol: x.ilk.split('-')[0]!,
    class: 1,
    dec: 18,
    join: '0x00000000000000000000000000000000000000j1'.replace('j', 'e'),
    pip: '0x00000000000000000000000000000000000000f1',
    clip: '0x00000000000000000000000000000000000000c1',
    rate: RAY,
    spot: 0n,
    line: 10_000_000n * 10n ** 45n,
    dust: 0n,
    mat: RAY,
    duty: RAY,
    chop: 0n,
    hole: 0n,
    dirt: 0n,
    joinBalance: 0n,
    clipper: null,
    ...x,
  };
}

const CLIPPER: MakerClipperState = {
  calc: '0x00000000000000000000000000000000000000c2',
  buf: (12n * RAY) / 10n,
  tail: 8400n,
  cusp: (45n * RAY) / 100n,
  curveAtTail: (39n * RAY) / 100n,
};

/** ETH-A: two vaults (11,000 and 26,400 DAI of debt at rate 1.1), PSM-USDC-A and an unpriced RWA. */
function makerSnapshot(timestamp: number, block: number, over: Partial<MakerSnapshot> = {}): MakerSnapshot {
  return {
    design: 'maker-mcd',
    chain: 'ethereum',
    protocol: 'makerdao',
    blockNumber: block,
    timestamp,
    addresses: { MCD_VAT: VAT, MCD_DAI: DAI, MCD_PSM_USDC_A: PSM },
    token: DAI,
    vat: VAT,
    totalSupply: 88_400n * E18,
    protocolHeld: 400n * E18,
    debt: 88_400n * 10n ** 45n,
    par: RAY,
    Line: 100_000_000n * 10n ** 45n,
    base: 0n,
    Hole: 100_000_000n * 10n ** 45n,
    Dirt: 0n,
    ilks: [
      ilk({
        ilk: 'ETH-A',
        gem: WETH,
        Art: 34_000n * E18,
        rate: (11n * RAY) / 10n,
        mat: (3n * RAY) / 2n,
        spot: ((2000n * RAY) / 3n) * 2n,
        // 2 % a year: duty = 1.02^(1/year) in ray, as the Jug holds it.
        duty: 1_000000000627937192491029810n,
        chop: 1_130000000000000000n,
        // The Dog lets ETH-A's auctions raise 30,000 DAI; its Clipper starts at 120 % and resets at 45 % of that.
        hole: 30_000n * 10n ** 45n,
        clipper: CLIPPER,
        joinBalance: 30n * E18,
      }),
      ilk({ ilk: 'PSM-USDC-A', gem: USDC, dec: 6, Art: 50_000n * E18, joinBalance: 50_000n * 10n ** 6n }),
      ilk({ ilk: 'RWA001-A', gem: RWA, class: 3, Art: 1000n * E18, joinBalance: E18 }),
    ],
    psms: [{ key: 'MCD_PSM_USDC_A', address: PSM, ilk: 'PSM-USDC-A', tin: 0n, tout: 0n }],
    urns: [
      { ilk: 'ETH-A', urn: HOLDER_A, ink: 10n * E18, art: 10_000n * E18 },
      { ilk: 'ETH-A', urn: HOLDER_B, ink: 20n * E18, art: 24_000n * E18 },
      { ilk: 'PSM-USDC-A', urn: PSM, ink: 50_000n * E18, art: 50_000n * E18 },
    ],
    ...over,
  };
}

let logIndex = 0;
function event(timestamp: number, block: number, e: StableEventFact['event'], protocol = 'makerdao'): StableEventFact {
  return {
    chain: 'ethereum',
    protocol,
    blockNumber: block,
    logIndex: logIndex++,
    txHash: `0x${'ab'.repeat(32)}`,
    address: DAI,
    timestamp,
    event: e,
  };
}
const transfer = (t: number, block: number, from: string, to: string, value: bigint, protocol = 'makerdao') =>
  event(t, block, { source: 'event', kind: 'transfer', from, to, value }, protocol);

const MAKER_REF = {
  chain: 'ethereum',
  protocol: 'makerdao',
  name: 'MakerDAO',
  design: 'maker-mcd' as const,
  symbol: 'DAI',
  quotes: [{ symbol: 'USDC', address: USDC }],
};

/** Snapshots today and on days −1…−5; none on day −6 (a day without data). */
function makerInput(over: (s: MakerSnapshot) => MakerSnapshot = (s) => s): StablecoinProtocolInput {
  const snapshots = [5, 4, 3, 2, 1].map((d) => over(makerSnapshot(TODAY - d * DAY + 20 * 3600, 900 - d * 10)));
  snapshots.push(over(makerSnapshot(AS_OF, 1000)));
  // All DAI was minted on day −3, after that day's snapshot (block 875): before it the replay is incomplete.
  const mintDay = TODAY - 3 * DAY + 22 * 3600;
  return {
    target: MAKER_REF,
    snapshots,
    events: [
      event(AS_OF - 600, 990, { source: 'event', kind: 'poke', ilk: 'ETH-A', val: 2000n * E18, spot: 0n }),
      event(AS_OF - 300, 995, {
        source: 'event',
        kind: 'bark',
        ilk: 'ETH-A',
        urn: HOLDER_A,
        ink: E18,
        art: 900n * E18,
        due: 1000n * 10n ** 45n,
        clip: '0x00000000000000000000000000000000000000c1',
        id: 1n,
      }),
      event(AS_OF - 290, 995, {
        source: 'event',
        kind: 'kick',
        id: 1n,
        top: 0n,
        tab: 0n,
        lot: E18,
        usr: HOLDER_A,
        kpr: HOLDER_B,
      }),
      event(AS_OF - 200, 996, {
        source: 'event',
        kind: 'take',
        id: 1n,
        max: 0n,
        price: 0n,
        owe: 1130n * 10n ** 45n,
        tab: 0n,
        lot: 0n,
        usr: HOLDER_A,
      }),
    ],
    transfers: [
      transfer(mintDay, 876, ZERO, HOLDER_A, 50_000n * E18),
      transfer(mintDay, 876, ZERO, HOLDER_B, 38_400n * E18),
      transfer(mintDay, 877, HOLDER_B, PSM, 400n * E18),
    ],
  };
}

const dex = { pools, tokens, snapshots: dexSnapshots, swaps: [], syncs, prices };

function liquitySnapshot(over: Partial<LiquitySnapshot> = {}): LiquitySnapshot {
  return {
    design: 'liquity-v1',
    chain: 'ethereum',
    protocol: 'liquity',
    blockNumber: 1000,
    timestamp: AS_OF,
    addresses: { troveManager: TM, priceFeed: '0x4c517d4e2c851ca76d7ec94b805269df0f2201de' },
    token: LUSD,
    troveManager: TM,
    totalSupply: 150_000n * E18,
    protocolHeld: 400n * E18,
    systemColl: 100n * E18,
    systemDebt: 150_000n * E18,
    price: 2000n * E18,
    tcr: 1_333333333333333333n,
    recoveryMode: true,
    spDeposits: 50_000n * E18,
    borrowingRate: 5n * 10n ** 15n,
    redemptionRate: 8n * 10n ** 15n,
    // Floor 0.5 % + a base rate decayed to 0.3 %; BETA 2 (Liquity v1's constants, read on chain).
    redemptionRateWithDecay: 8n * 10n ** 15n,
    redemptionBeta: 2n,
    redemptionFeeFloor: 5n * 10n ** 15n,
    mcr: 1_100000000000000000n,
    ccr: 1_500000000000000000n,
    collateralToken: WETH,
    troves: [
      { owner: HOLDER_A, debt: 60_000n * E18, coll: 50n * E18 },
      { owner: HOLDER_B, debt: 90_000n * E18, coll: 50n * E18 },
    ],
    ...over,
  };
}

const LIQUITY_REF = {
  ...MAKER_REF,
  protocol: 'liquity',
  name: 'Liquity',
  design: 'liquity-v1' as const,
  symbol: 'LUSD',
};

function liquityInput(over: Partial<LiquitySnapshot> = {}): StablecoinProtocolInput {
  return {
    target: LIQUITY_REF,
    snapshots: [liquitySnapshot(over)],
    events: [
      event(AS_OF - 100, 999, { source: 'event', kind: 'last_good_price', price: 2000n * E18 }, 'liquity'),
      event(
        AS_OF - 50,
        999,
        { source: 'event', kind: 'redemption', attempted: 0n, actual: 1000n * E18, ethSent: 0n, ethFee: 0n },
        'liquity',
      ),
    ],
    transfers: [transfer(AS_OF - 2 * DAY, 500, ZERO, HOLDER_A, 150_000n * E18, 'liquity')],
  };
}

const run = (protocols: StablecoinProtocolInput[]) => computeStablecoin({ protocols, dex } satisfies StablecoinInput);

describe('computeStablecoin: MakerDAO', () => {
  const out = run([makerInput()]);
  const collaterals = out.collaterals.get('makerdao')!.data;
  const weekly = out.weekly.get('makerdao')!.data;

  it('names what it read and carries supply and debt as floats', () => {
    expect(collaterals).toMatchObject({
      token_address: DAI,
      vat_address: VAT,
      total_supply: 88_400,
      total_debt: 88_400,
      total_debt_base: 88_400,
      as_of: '2026-11-20T12:00:00Z',
    });
    for (const r of weekly) {
      expect(r.token_address).toBe(DAI);
      expect(r.vat_address).toBe(VAT);
    }
  });

  it.each([
    // [ilk, kind, debt in DAI, amount, price, collateral USD]
    ['ETH-A', 'crypto', 37_400, 30, 2000, 60_000],
    ['PSM-USDC-A', 'psm', 50_000, 50_000, 1, 50_000],
    ['RWA001-A', 'rwa', 1000, 1, null, null],
  ] as const)(
    '%s: kind %s, debt Art × rate, amount from the join, market price',
    (name, kind, debt, amount, price, usd) => {
      const c = collaterals.collateral_assets.find((x) => x.ilk === name)!;
      expect(c).toMatchObject({ kind, debt, amount, price_usd: price, collateral_usd: usd });
    },
  );

  it('a collateral type without a market price: null price and USD with no_price, never 0', () => {
    const rwa = collaterals.collateral_assets.find((x) => x.ilk === 'RWA001-A')!;
    expect(rwa.gap_reasons).toMatchObject({ price_usd: 'no_price', collateral_usd: 'no_price' });
    expect(collaterals.total_collateral_usd).toBeNull();
    expect(collaterals.gap_reasons.total_collateral_usd).toBe('no_price');
  });

  it('the collateral ratio is over crypto types only, with each kind’s share beside it', () => {
    expect(collaterals.collateral_ratio).toBeCloseTo(60_000 / 37_400, 6);
    const shares = Object.fromEntries(collaterals.kind_shares.map((k) => [k.kind, k.debt_share]));
    expect(shares.crypto).toBeCloseTo(37_400 / 88_400, 6);
    expect(shares.psm).toBeCloseTo(50_000 / 88_400, 6);
    expect(shares.rwa).toBeCloseTo(1000 / 88_400, 6);
  });

  it('ETH-A parameters: liquidation ratio, penalty, ceiling and the yearly stability fee', () => {
    const eth = collaterals.collateral_assets.find((x) => x.ilk === 'ETH-A')!;
    expect(eth.min_collateralization).toBe(1.5);
    expect(eth.liquidation_penalty).toBeCloseTo(0.13, 9);
    expect(eth.debt_ceiling).toBe(10_000_000);
    expect(eth.stability_fee).toBeCloseTo(0.02, 6);
    expect(eth.price_source).toBe('market_oracle');
  });

  it('vaults by collateral ratio and the debt liquidatable under 10/20/35/50 % drops', () => {
    const eth = collaterals.collateral_assets.find((x) => x.ilk === 'ETH-A')!;
    expect(eth.positions).toBe(2);
    const band = (min: number) => eth.distribution.find((b) => b.min === min)!;
    expect(band(1.5)).toMatchObject({ positions: 1, debt: 26_400 });
    expect(band(1.75)).toMatchObject({ positions: 1, debt: 11_000 });
    expect(eth.liquidatable).toEqual([
      { price_drop: 0.1, debt: 26_400, positions: 1 },
      { price_drop: 0.2, debt: 37_400, positions: 2 },
      { price_drop: 0.35, debt: 37_400, positions: 2 },
      { price_drop: 0.5, debt: 37_400, positions: 2 },
    ]);
    const psm = collaterals.collateral_assets.find((x) => x.ilk === 'PSM-USDC-A')!;
    expect(psm.gap_reasons.distribution).toBe('not_applicable');
  });

  it('seven daily records newest first; a day without data has nulls and a gap_reason', () => {
    expect(weekly.map((r) => r.date)).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
      '2026-11-17',
      '2026-11-16',
      '2026-11-15',
      '2026-11-14',
    ]);
    expect(weekly.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    const gap = weekly[6]!;
    expect(gap).toMatchObject({ gap_reason: 'no_data', total_supply: null, total_debt: null, holders: null });
    expect(gap.gap_reasons.total_supply).toBe('no_data');
    expect(weekly.slice(0, 6).every((r) => r.gap_reason === null)).toBe(true);
  });

  it('holders from the Transfer replay, only where it adds up to totalSupply', () => {
    expect(weekly[0]!.holders).toBe(3);
    expect(weekly[0]!.circulating_supply).toBe(88_000);
    // Day −3's snapshot precedes the mints: the replay does not reach totalSupply there (the holder component follows).
    expect(weekly[3]).toMatchObject({ holders: null, gap_reasons: { holders: 'partial_history' } });
    expect(weekly[3]!.minted).toBe(88_400);
    const holderPart = (i: number) => out.scores.get('ethereum/makerdao')!.data[i]!.components[5]!;
    expect([holderPart(0).value === null, holderPart(0).inputs.top_holders]).toEqual([false, 10]);
    expect(holderPart(3)).toMatchObject({ name: 'holder_concentration', value: null, gap_reason: 'partial_history' });
  });

  it('peg, depth, backstop and liquidations of the running day', () => {
    const today = weekly[0]!;
    expect(today).toMatchObject({
      peg_mean_price: 1,
      peg_max_deviation: 0,
      peg_hours_outside_band: 0,
      peg_hours_priced: 13,
      psm_holdings_usd: 50_000,
      liquidations: 1,
      liquidated_debt: 1000,
      auctions_started: 1,
      auctions_reset: 0,
      auction_takes: 1,
      auction_dai_recovered: 1130,
      stability_pool_deposits: null,
    });
    expect(today.gap_reasons.stability_pool_deposits).toBe('not_applicable');
    expect(today.depth.map((d) => d.price_move)).toEqual([0.01, 0.02, 0.05]);
    // V2 at 0.3 % fee: a 1 % move on 1M/1M needs ≈ 0.5 % of the reserve.
    expect(today.depth[0]!.sell_amount).toBeGreaterThan(4_000);
    expect(today.depth[0]!.sell_amount).toBeLessThan(7_000);
    expect(today.dex_liquidity_usd).toBeCloseTo(2_000_000, 0);
  });

  it('a 7-day score history whose day without data is null with no_data', () => {
    const scores = out.scores.get('ethereum/makerdao')!.data;
    expect(scores).toHaveLength(7);
    expect(scores[0]!.score).not.toBeNull();
    // The model's six components in its order (score.test.ts and the e2e test name them).
    expect(scores[0]!.components.map((c) => c.name)).toEqual(Object.keys(WEIGHTS));
    expect(scores[6]).toMatchObject({ score: null, grade: null, gap_reason: 'no_data', partial: false });
    expect(out.allMarkets!.data).toEqual([scores[0]]);
  });

  it('liquidation absorption from the auction: the tab (debt × chop) against the Dog’s room and the pools down to the curve’s lowest price', () => {
    const eth = collaterals.collateral_assets.find((x) => x.ilk === 'ETH-A')!;
    // 37,400 DAI liquidatable under 35 % owe 37,400 × 1.13 = 42,262; the auction falls to 1.2 × max(0.45, 0.39) = 54 %
    // of the market, so keepers may sell WETH down 46 %: the 1,000 WETH / 2M USDC pool pays ≈ 530k USDC for that,
    // but the Dog lets ETH-A's auctions raise 30,000 DAI only.
    expect(eth.auction).toMatchObject({
      clipper: '0x00000000000000000000000000000000000000c1',
      calc: CLIPPER.calc,
      buf: 1.2,
      tail: 8400,
      cusp: 0.45,
      curve_at_tail: 0.39,
      lowest_price: 0.54,
      keeper_margin: 0.46,
      room: 30_000,
      stressed_tab: 42_262,
      absorbable: 30_000,
    });
    expect(eth.auction!.depth).toBeGreaterThan(500_000);
    expect(eth.auction!.depth).toBeLessThan(531_000);
    const psm = collaterals.collateral_assets.find((x) => x.ilk === 'PSM-USDC-A')!;
    expect(psm.auction).toBeNull();
    expect(psm.gap_reasons.auction).toBe('not_applicable');
    const absorption = out.scores
      .get('ethereum/makerdao')!
      .data[0]!.components.find((c) => c.name === 'liquidation_absorption')!;
    expect(absorption.inputs).toMatchObject({ liquidatable_usd: 42_262, absorbable_usd: 30_000 });
    expect(absorption.value).toBeCloseTo(30_000 / 42_262, 4);
  });

  it('absorption: the global Hole bounds every type; no Clipper or no keeper margin absorbs nothing; an old snapshot is no_data', () => {
    const absorbed = (over: (s: MakerSnapshot) => MakerSnapshot) => {
      const o = run([makerInput(over)]);
      const eth = o.collaterals.get('makerdao')!.data.collateral_assets.find((x) => x.ilk === 'ETH-A')!;
      const c = o.scores
        .get('ethereum/makerdao')!
        .data[0]!.components.find((x) => x.name === 'liquidation_absorption')!;
      return { eth, c };
    };
    const eth = (s: MakerSnapshot, f: (x: MakerIlkState) => MakerIlkState) => ({
      ...s,
      ilks: s.ilks.map((x) => (x.ilk === 'ETH-A' ? f(x) : x)),
    });
    // Dirt 99,990,000 of a 100M Hole: 10,000 DAI of room left for all auctions.
    const full = absorbed((s) => ({ ...s, Dirt: 99_990_000n * 10n ** 45n }));
    expect(full.eth.auction).toMatchObject({ room: 30_000, absorbable: 10_000 });
    expect(full.c.inputs).toMatchObject({ absorbable_usd: 10_000 });
    // A curve that never falls below the market (1.2 × 0.9): no keeper takes at a profit.
    const flat = absorbed((s) => eth(s, (x) => ({ ...x, clipper: { ...CLIPPER, cusp: (9n * RAY) / 10n } })));
    expect(flat.eth.auction).toMatchObject({ lowest_price: 1.08, keeper_margin: 0, absorbable: 0 });
    expect(flat.c.value).toBe(0);
    // No Clipper on the Dog (a Flipper type under the old Cat): its tab counts, nothing absorbs it.
    const none = absorbed((s) => eth(s, (x) => ({ ...x, clipper: null })));
    expect(none.eth.auction).toBeNull();
    expect(none.eth.gap_reasons.auction).toBe('not_applicable');
    expect(none.c.inputs).toMatchObject({ liquidatable_usd: 42_262, absorbable_usd: 0 });
    // A type the Dog does not know at all (chop 0): its debt is still owed, nothing absorbs it.
    const unknown = absorbed((s) => eth(s, (x) => ({ ...x, clipper: null, chop: 0n, hole: 0n })));
    expect(unknown.c.inputs).toMatchObject({ liquidatable_usd: 37_400, absorbable_usd: 0 });
    // Vaults that do not add up: the auction's terms are served, its stressed figures null with the table's reason.
    const partial = absorbed((s) => ({ ...s, urns: s.urns.slice(1) }));
    expect(partial.eth.auction).toMatchObject({ room: 30_000, stressed_tab: null, depth: null, absorbable: null });
    expect(partial.eth.gap_reasons).toMatchObject({
      'auction.stressed_tab': 'no_data',
      'auction.absorbable': 'no_data',
    });
    // A snapshot stored before the auction was read: unknown, never assumed.
    const old = absorbed((s) => {
      const { Hole: _h, Dirt: _d, ...rest } = eth(s, ({ clipper: _c, ...x }) => x);
      return rest as MakerSnapshot;
    });
    expect(old.eth.gap_reasons.auction).toBe('no_data');
    expect(old.c).toMatchObject({ value: null, gap_reason: 'no_data' });
  });

  it('a crypto collateral without a market price leaves the collateral ratio null (no_price) and the buffer dropped', () => {
    const input = makerInput((s) => ({
      ...s,
      ilks: s.ilks.map((x) => (x.ilk === 'ETH-A' ? { ...x, gem: RWA, spot: 0n } : x)),
    }));
    // Neither a DEX price of its token nor an oracle price (no Poke, spot 0).
    const unpriced = run([{ ...input, events: input.events.filter((e) => e.event.kind !== 'poke') }]);
    const c = unpriced.collaterals.get('makerdao')!.data;
    expect(c.collateral_ratio).toBeNull();
    expect(c.gap_reasons.collateral_ratio).toBe('no_price');
    const score = unpriced.scores.get('ethereum/makerdao')!.data[0]!;
    expect(score.components.find((x) => x.name === 'collateral_buffer')).toMatchObject({
      value: null,
      gap_reason: 'no_price',
    });
  });

  it('vaults whose art does not add up to the ilk’s Art: no distribution (no_data), never a partial one', () => {
    const partial = run([makerInput((s) => ({ ...s, urns: s.urns.slice(1) }))]);
    const eth = partial.collaterals.get('makerdao')!.data.collateral_assets.find((x) => x.ilk === 'ETH-A')!;
    expect(eth).toMatchObject({ positions: null, distribution: [], liquidatable: [] });
    expect(eth.gap_reasons).toMatchObject({ distribution: 'no_data', liquidatable: 'no_data' });
  });

  it('backed debt, system debt (vice) and the surplus buffer apart; the kind shares with system sum to one', () => {
    // 2,000 DAI of bad debt on top of the 88,400 the collateral types owe; the Vow holds 5,000 DAI and 1,000 sin.
    const out2 = run([
      makerInput((s) => ({
        ...s,
        debt: 90_400n * 10n ** 45n,
        vice: 2_000n * 10n ** 45n,
        vowDai: 5_000n * 10n ** 45n,
        vowSin: 1_000n * 10n ** 45n,
      })),
    ]);
    const today = out2.weekly.get('makerdao')!.data[0]!;
    expect(today).toMatchObject({ total_debt: 90_400, backed_debt: 88_400, system_debt: 2_000, surplus_buffer: 4_000 });
    const c = out2.collaterals.get('makerdao')!.data;
    expect(c.backed_debt).toBe(c.collateral_assets.reduce((s, x) => s + x.debt, 0));
    expect(c.backed_debt + c.system_debt!).toBe(c.total_debt);
    const system = c.kind_shares.find((k) => k.kind === 'system')!;
    expect(system).toMatchObject({ debt: 2_000, collateral_usd: 0 });
    expect(c.kind_shares.reduce((s, k) => s + k.debt_share!, 0)).toBeCloseTo(1, 5);
    // A snapshot stored before the Vow was read: vice from the Vat's identity, the buffer unknown with a reason.
    const old = run([makerInput((s) => ({ ...s, debt: 90_400n * 10n ** 45n }))]).weekly.get('makerdao')!.data[0]!;
    expect(old).toMatchObject({ backed_debt: 88_400, system_debt: 2_000, surplus_buffer: null });
    expect(old.gap_reasons.surplus_buffer).toBe('no_data');
    // Liquity has no unbacked debt of its own: not applicable.
    const lq = run([liquityInput()]).weekly.get('liquity')!.data[0]!;
    expect(lq.backed_debt).toBe(lq.total_debt);
    expect(lq).toMatchObject({ system_debt: null, surplus_buffer: null });
    expect(lq.gap_reasons).toMatchObject({ system_debt: 'not_applicable', surplus_buffer: 'not_applicable' });
    const lqc = run([liquityInput()]).collaterals.get('liquity')!.data;
    expect(lqc).toMatchObject({ system_debt: null, surplus_buffer: null });
    expect(lqc.gap_reasons).toMatchObject({ system_debt: 'not_applicable', surplus_buffer: 'not_applicable' });
  });

  it('no PSM: holdings null with no_members, never 0; concentration by collateral asset, not by collateral type', () => {
    const noPsm = run([makerInput((s) => ({ ...s, psms: [] }))]).weekly.get('makerdao')!.data[0]!;
    expect(noPsm.psm_holdings_usd).toBeNull();
    expect(noPsm.gap_reasons.psm_holdings_usd).toBe('no_members');
    // ETH-A split in two types on the same gem (as ETH-A/ETH-B): the same asset, so the same concentration.
    // Without the unpriced RWA type, so that the HHI is known.
    const priced = (s: MakerSnapshot) => ({ ...s, ilks: s.ilks.filter((x) => x.ilk !== 'RWA001-A') });
    const base = run([makerInput(priced)]);
    const split = run([
      makerInput((s) => ({
        ...priced(s),
        ilks: priced(s).ilks.flatMap((x) =>
          x.ilk === 'ETH-A'
            ? [
                { ...x, Art: x.Art / 2n, joinBalance: x.joinBalance! / 2n },
                { ...x, ilk: 'ETH-B', Art: x.Art / 2n, joinBalance: x.joinBalance! / 2n },
              ]
            : [x],
        ),
      })),
    ]);
    const hhiOf = (o: typeof out) =>
      o.scores.get('ethereum/makerdao')!.data[0]!.components.find((c) => c.name === 'collateral_concentration')!.inputs
        .collateral_hhi;
    const weekly2 = split.collaterals.get('makerdao')!.data.collateral_assets.map((c) => c.ilk);
    expect(weekly2).toContain('ETH-B');
    expect(hhiOf(base)).not.toBeNull();
    expect(hhiOf(split)).toBe(hhiOf(base));
  });

  it('a block stamped exactly 00:00:00 counts in the day it starts, once: [day start, next day start)', () => {
    const base = makerInput();
    const midnight = TODAY - 2 * DAY;
    const input: StablecoinProtocolInput = {
      ...base,
      transfers: [
        ...base.transfers,
        transfer(midnight, 880, ZERO, HOLDER_A, 1_000n * E18),
        transfer(TODAY, 950, HOLDER_A, ZERO, 200n * E18),
      ],
      events: [
        ...base.events,
        event(midnight, 880, {
          source: 'event',
          kind: 'bark',
          ilk: 'ETH-A',
          urn: HOLDER_A,
          ink: E18,
          art: 10n * E18,
          due: 10n * 10n ** 45n,
          clip: '0x00000000000000000000000000000000000000c1',
          id: 2n,
        }),
      ],
    };
    const days = run([input]).weekly.get('makerdao')!.data;
    const before = out.weekly.get('makerdao')!.data;
    // Day −2 starts at that block; day −3 (which ends the second before) does not see it.
    expect(days[2]!.minted).toBe(before[2]!.minted! + 1000);
    expect(days[3]!.minted).toBe(before[3]!.minted);
    expect(days[2]!.liquidations).toBe(before[2]!.liquidations! + 1);
    expect(days[3]!.liquidations).toBe(before[3]!.liquidations);
    // Today's first second is today's, not yesterday's.
    expect(days[0]!.burned).toBe(before[0]!.burned! + 200);
    expect(days[1]!.burned).toBe(before[1]!.burned);
  });
});

describe('computeStablecoin: Liquity', () => {
  it('recovery mode: TCR below 150 %, the recovery-mode liquidation threshold, the buffer at 0', () => {
    const out = run([liquityInput()]);
    const today = out.weekly.get('liquity')!.data[0]!;
    expect(today).toMatchObject({
      trove_manager_address: TM,
      token_address: LUSD,
      total_supply: 150_000,
      total_debt: 150_000,
      recovery_mode: true,
      tcr_above_critical: false,
      stability_pool_deposits: 50_000,
      redemptions: 1,
      redeemed: 1000,
      holders: 1,
    });
    expect(today.stability_pool_coverage).toBeCloseTo(1 / 3, 6);
    // Both concentration parts known (one holder, one collateral): 0 and 0. Transfers that do not reach back to the
    // deployment (mainnet): holders null with partial_history, the collateral part unchanged, never standing for both.
    const parts = (o: typeof out) => o.scores.get('ethereum/liquity')!.data[0]!.components.slice(4);
    expect(parts(out).map((c) => c.value)).toEqual([0, 0]);
    expect(parts(run([{ ...liquityInput(), transfers: [] }]))).toMatchObject([
      { name: 'collateral_concentration', value: 0, inputs: { collateral_hhi: 1 } },
      { name: 'holder_concentration', value: null, weight: 0, gap_reason: 'partial_history' },
    ]);
    expect(today).toMatchObject({
      auction_takes: null,
      gap_reasons: expect.objectContaining({ auction_takes: 'not_applicable' }),
    });
    expect(today.collateral_ratio).toBeCloseTo(200_000 / 150_000, 6);
    const eth = out.collaterals.get('liquity')!.data.collateral_assets[0]!;
    expect(eth).toMatchObject({ min_collateralization: 1.1, critical_collateralization: 1.5, positions: 2 });
    // After a 10 % drop the TCR is 1.2 < 1.5: troves below 1.2 are liquidatable, not only those below 1.1.
    expect(eth.liquidatable[0]).toEqual({ price_drop: 0.1, debt: 90_000, positions: 1 });
    const score = out.scores.get('ethereum/liquity')!.data[0]!;
    expect(score.components.find((c) => c.name === 'collateral_buffer')).toMatchObject({ value: 0 });
  });

  it('normal mode: the buffer is the TCR above 150 %; redemptions count as a backstop', () => {
    const out = run([
      liquityInput({
        systemColl: 150n * E18,
        tcr: 2n * E18,
        recoveryMode: false,
        troves: [
          { owner: HOLDER_A, debt: 60_000n * E18, coll: 75n * E18 },
          { owner: HOLDER_B, debt: 90_000n * E18, coll: 75n * E18 },
        ],
      }),
    ]);
    const score = out.scores.get('ethereum/liquity')!.data[0]!;
    const buffer = score.components.find((c) => c.name === 'collateral_buffer')!;
    expect(buffer.value).toBeCloseTo(2 / 1.5 - 1, 4);
    const exit = score.components.find((c) => c.name === 'exit_liquidity')!;
    // Not the whole debt: one redemption of x LUSD pays 0.8 % + x / (150,000 × 2); within 2 % x ≤ 3,600.
    const record = out.weekly.get('liquity')!.data[0]!;
    expect(record.redeemable_within_exit).toBeCloseTo(3_600, 6);
    const lusdUsd = record.total_debt_usd! / record.total_debt!;
    expect(exit.inputs.backstop_usd).toBeCloseTo(3_600 * lusdUsd, 2);
  });

  it('the redemption backstop follows the fee formula: closed below MCR, nothing above the cost, unknown without it', () => {
    const at = (over: Partial<LiquitySnapshot>) => liquityRedeemableWithin(liquitySnapshot(over), 0.02);
    expect(at({ tcr: 2n * E18 })).toBeCloseTo(0.012 * 2 * 150_000, 6);
    // A fee already at the cost leaves nothing; a closed redemption (TCR < MCR) neither.
    expect(at({ tcr: 2n * E18, redemptionRateWithDecay: 2n * 10n ** 16n })).toBe(0);
    expect(at({ tcr: 1_05n * 10n ** 16n })).toBe(0);
    // At most the circulating LUSD (a zero base rate and a large BETA cannot redeem more than is held).
    expect(at({ tcr: 2n * E18, redemptionBeta: 1000n })).toBeCloseTo(150_000 - 400, 6);
    // A snapshot taken before the formula was read: unknown, and the exit component says so.
    const old = liquitySnapshot({ tcr: 2n * E18 });
    const { redemptionRateWithDecay: _r, redemptionBeta: _b, redemptionFeeFloor: _f, ...before } = old;
    expect(liquityRedeemableWithin(before, 0.02)).toBeNull();
    const out = run([{ ...liquityInput(), snapshots: [before] }]);
    const exit = out.scores.get('ethereum/liquity')!.data[0]!.components.find((c) => c.name === 'exit_liquidity')!;
    expect(exit.value).toBeNull();
    expect(exit.gap_reason).toBe('no_data');
    expect(out.weekly.get('liquity')!.data[0]!.gap_reasons.redeemable_within_exit).toBe('no_data');
  });
});

// The API's own format check: ISO-8601 UTC with seconds (docs/vocabulary.md).
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));

describe('payloads and documents', () => {
  const out = run([makerInput(), liquityInput()]);

  it('every payload matches its path’s schema (the API validates and serialises with it)', () => {
    const errors = (schema: TSchema, value: unknown) =>
      [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
    for (const [, x] of out.weekly) expect(errors(Type.Array(WeeklyRecord), x.data)).toEqual([]);
    for (const [, x] of out.collaterals) expect(errors(CollateralsPayload, x.data)).toEqual([]);
    for (const [, x] of out.scores) expect(errors(StableScoreHistory, x.data)).toEqual([]);
    expect(errors(Type.Array(StableScoreRecord), out.allMarkets!.data)).toEqual([]);
  });

  it('publishes the 4 paths, each document at its own as_of with the methodology', () => {
    const docs = stablecoinDocuments(out);
    expect(docs.map((d) => d.path).sort()).toEqual([
      '/data/stablecoin/liquity',
      '/data/stablecoin/liquity/collaterals',
      '/data/stablecoin/makerdao',
      '/data/stablecoin/makerdao/collaterals',
      '/scores/liquidity-stablecoin-all-markets',
      '/scores/liquidity-stablecoin/ethereum/liquity',
      '/scores/liquidity-stablecoin/ethereum/makerdao',
    ]);
    for (const d of docs) expect(d.methodology).toBe('stablecoin.liquidity@1.9.0');
    expect(out.allMarkets!.data.map((s) => s.protocol)).toEqual(['liquity', 'makerdao']);
  });
});

describe('computeStablecoin: one price per token per instant (issue 26 items 7 and 10)', () => {
  // The chain's USD feeds, as the lending area reads them through AaveOracle: USDC at 0.99 (the DEX anchors it at
  // 1.00), WETH at 2,100 (Maker's OSM poked 2,000, the DEX says 2,000).
  const feeds = Array.from({ length: 10 }, (_, d) => TODAY - d * DAY).flatMap((t) => [
    { token: USDC, priceUsd: 0.99, updatedAt: t, heartbeat: DAY, ref: '0xusdcfeed' },
    { token: WETH, priceUsd: 2100, updatedAt: t, heartbeat: 3600 * 24, ref: '0xethfeed' },
  ]);
  const out = computeStablecoin({ protocols: [makerInput()], dex, feeds });
  const errors = (schema: TSchema, value: unknown) =>
    [...Value.Errors(schema, value)].map((e) => `${e.path} ${e.message}`);
  const today = out.weekly.get('makerdao')!.data[0]!;

  it('measures the peg against the quote asset’s policy price (its feed), served beside the peg', () => {
    expect(today).toMatchObject({
      peg_quote_token_address: USDC,
      peg_quote_price_usd: 0.99,
      peg_quote_price_source: 'oracle',
      peg_quote_price_source_ref: '0xusdcfeed',
      // DAI trades 1:1 against USDC: its USD price is the quote's policy price, 0.99, every hour.
      peg_mean_price: 0.99,
      peg_max_deviation: 0.01,
    });
    expect(errors(WeeklyRecord, today)).toEqual([]);
  });

  it('prices collateral by the feed and serves the protocol’s own oracle beside it, with the gap and the flag', () => {
    const eth = out.collaterals.get('makerdao')!.data.collateral_assets.find((c) => c.ilk === 'ETH-A')!;
    expect(eth).toMatchObject({
      price_usd: 2100,
      price_source: 'oracle',
      price_source_ref: '0xethfeed',
      alternative_price_usd: 2000,
      price_flagged: true,
      oracle_price_usd: 2000,
      oracle_source_ref: '0x00000000000000000000000000000000000000f1',
      oracle_disagreement: 0.0476,
      oracle_flagged: true,
    });
    expect(errors(CollateralsPayload, out.collaterals.get('makerdao')!.data)).toEqual([]);
  });
});
