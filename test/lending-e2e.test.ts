import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseAbiItem,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { lendingArea } from '../src/areas/lending/index.js';
import { readAaveSnapshot } from '../src/areas/lending/ingest-snapshot.js';
import { incrementalAccounts } from '../src/areas/lending/participants.js';
import { LendingRepository } from '../src/areas/lending/repo.js';
import { lendingTargets } from '../src/areas/lending/targets.js';
import { oraclesArea } from '../src/areas/oracles/index.js';
import { FEED_FRESHNESS_FACTOR, roundPriceUsd, roundUsd } from '../src/core/price-policy.js';
import { DEPLOYER_PRIVATE_KEY } from '../src/sandbox/chain/agent.js';
import type { ManifestAaveMarket } from '../src/sandbox/world/manifest.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * End to end on a small seeded world: the sandbox's Aave, Spark and Morpho markets → lending.ingest →
 * lending.snapshot → lending.compute (with the DEX jobs' prices and depth) → API. Every key figure is recounted
 * here with viem alone — the chain's own getters at the `as_of` block and its logs — never with the service's
 * decoding or computation, and must be equal.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string };
}

type Row = Record<string, unknown>;
interface Asset extends Row {
  token_address: string;
  total_supply_raw: string;
  total_borrow_raw: string;
  num_unique_wallets_supply: number;
  num_unique_wallets_borrow: number;
  block_number: number;
}
interface Market extends Row {
  block_number: number;
  assets: Asset[];
  health_factor_distribution: { band: string; debt_usd: number; positions: number }[];
  liquidations: {
    count: number;
    count_7d: number;
    by_day: { date: string; count: number }[];
    recent: RecentLiquidation[];
  };
}
interface LegPrice {
  price_usd: number;
  source: string;
  source_ref: string;
}
interface RecentLiquidation {
  tx_hash: string;
  borrower: string;
  block_number: number;
  debt_asset: string;
  debt_repaid_token: number;
  debt_repaid_usd: number | null;
  debt_price: LegPrice | null;
  collateral_asset: string;
  collateral_seized_token: number;
  collateral_seized_usd: number | null;
  collateral_price: LegPrice | null;
}
interface Score extends Row {
  score: number | null;
  components: { name: string; value: number | null }[];
}

const ERC20 = parseAbi([
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
  'function mint(uint256) returns (bool)',
]);
const FEED = parseAbi([
  'function latestAnswer() view returns (int256)',
  'function transmit(int192 answer)',
  'function aggregator() view returns (address)',
]);
const POOL = parseAbi([
  'function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken)',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
]);
const SUPPLY = parseAbiItem(
  'event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)',
);
const BORROW = parseAbiItem(
  'event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)',
);
const BALANCE_TRANSFER = parseAbiItem(
  'event BalanceTransfer(address indexed from, address indexed to, uint256 value, uint256 index)',
);
const LIQUIDATION_CALL = parseAbiItem(
  'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
);
const BANDS: [string, number, number][] = [
  ['<1.0', 0, 1],
  ['1.0-1.05', 1, 1.05],
  ['1.05-1.1', 1.05, 1.1],
  ['1.1-1.25', 1.1, 1.25],
  ['1.25-1.5', 1.25, 1.5],
  ['1.5-2', 1.5, 2],
  ['>2', 2, Number.POSITIVE_INFINITY],
];

describe('lending markets end to end on the sandbox', () => {
  let w: TestWorld;
  let t: TestApp;
  let jobs: ReturnType<typeof areaRunner>;
  /** The DEX's jobs: Morpho's snapshots are valued at its prices and taken no later than the block it priced. */
  let dexJobs: ReturnType<typeof areaRunner>;
  const client = () => createPublicClient({ transport: http(w.world.rpcUrl) });
  /** The Aave market's snapshot block before the price shock (the last test's base for an incremental snapshot). */
  let preShockBlock: number | undefined;

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };
  const aave = () => w.world.manifest.lending?.aave ?? [];
  const marketPath = (m: Pick<ManifestAaveMarket, 'protocol' | 'version' | 'baseAsset'>) =>
    `ethereum/${m.protocol}/${m.version}/${m.baseAsset}`;

  beforeAll(async () => {
    w = await smallWorld();
    t = await testApp();
    dexJobs = areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync());
    await dexJobs.all();
    // The oracle area's rounds: the feed answers the liquidations are valued at.
    await areaRunner(oraclesArea, w.env, t.store, t.clock, () => t.sync()).all();
    jobs = areaRunner(lendingArea, w.env, t.store, t.clock, () => t.sync());
    await jobs.all();
    await t.sync();
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  it('lists the sandbox’s markets with their contracts and assets', async () => {
    const res = await get<Row[]>('/data/liquidity/lending/available-markets');
    const expected = [
      ...aave().map((m) => ({ protocol: m.protocol, version: m.version, base: m.baseAsset, pool: m.pool })),
      ...(w.world.manifest.lending?.morpho ?? []).map((m) => ({
        protocol: m.protocol,
        version: m.version,
        base: m.baseAsset,
        pool: m.morpho,
      })),
    ];
    expect(expected.map((m) => m.protocol).sort()).toEqual(['aave', 'morpho', 'spark']);
    for (const m of expected) {
      const listed = res.data.find((x) => x.protocol === m.protocol && x.version === m.version)!;
      expect(listed, m.protocol).toMatchObject({
        chain: 'ethereum',
        base_asset_symbol: m.base,
        pool_address: m.pool.toLowerCase(),
      });
      // The legacy API's base asset object (reference/legacy-api.md), beside the symbol.
      expect(listed.base_asset, m.protocol).toMatchObject({ token_symbol: m.base, token_index: expect.any(Number) });
    }
    for (const m of aave()) {
      const listed = res.data.find((x) => x.protocol === m.protocol)!;
      expect((listed.assets as { token_address: string }[]).map((a) => a.token_address).sort()).toEqual(
        m.reserves.map((r) => r.token.toLowerCase()).sort(),
      );
    }
  });

  it('per Aave reserve, supplied and borrowed equal the aToken and debt-token supplies at the as_of block', async () => {
    const c = client();
    for (const m of aave()) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      const blockNumber = BigInt(market.data.block_number);
      for (const r of m.reserves) {
        const res = await get<Asset>(`/data/liquidity/lending/asset-analytics/${marketPath(m)}/${r.token}`);
        expect(res.data.block_number).toBe(market.data.block_number);
        const [aSupply, vDebt, sDebt] = await Promise.all(
          [r.aToken, r.variableDebtToken, r.stableDebtToken].map((address) =>
            c.readContract({ address, abi: ERC20, functionName: 'totalSupply', blockNumber }),
          ),
        );
        expect(res.data.total_supply_raw, `${m.protocol} ${r.symbol}`).toBe(aSupply!.toString());
        expect(res.data.total_borrow_raw, `${m.protocol} ${r.symbol}`).toBe((vDebt! + sDebt!).toString());
      }
    }
  });

  it('per Aave reserve, the published rate model is the strategy contract’s own curve, and isolation mode is stated', async () => {
    const c = client();
    const STRATEGY = parseAbi([
      'function getInterestRateStrategyAddress(address asset) view returns (address)',
      'function OPTIMAL_USAGE_RATIO() view returns (uint256)',
      'function getBaseVariableBorrowRate() view returns (uint256)',
      'function getVariableRateSlope1() view returns (uint256)',
      'function getVariableRateSlope2() view returns (uint256)',
    ]);
    const ray = (x: bigint) => Number(x) / 1e27;
    for (const m of aave()) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      const blockNumber = BigInt(market.data.block_number);
      for (const r of m.reserves) {
        const res = await get<Asset & { rate_model: Record<string, unknown>; isolation: Record<string, unknown> }>(
          `/data/liquidity/lending/asset-analytics/${marketPath(m)}/${r.token}`,
        );
        // The strategy address through AaveProtocolDataProvider (the snapshot reads it from Pool.getReserveData).
        const strategy = (await c.readContract({
          address: m.dataProvider,
          abi: STRATEGY,
          functionName: 'getInterestRateStrategyAddress',
          args: [r.token],
          blockNumber,
        })) as `0x${string}`;
        const read = async (
          functionName:
            | 'OPTIMAL_USAGE_RATIO'
            | 'getBaseVariableBorrowRate'
            | 'getVariableRateSlope1'
            | 'getVariableRateSlope2',
        ) =>
          ray(
            (await c.readContract({
              address: strategy as `0x${string}`,
              abi: STRATEGY,
              functionName,
              blockNumber,
            })) as bigint,
          );
        const model = res.data.rate_model;
        expect(model.kind, `${m.protocol} ${r.symbol}`).toBe('aave-v3-default');
        expect(model.optimal_utilisation).toBeCloseTo(await read('OPTIMAL_USAGE_RATIO'), 9);
        expect(model.base_rate).toBeCloseTo(await read('getBaseVariableBorrowRate'), 9);
        expect(model.slope1).toBeCloseTo(await read('getVariableRateSlope1'), 9);
        expect(model.slope2).toBeCloseTo(await read('getVariableRateSlope2'), 9);
        expect(model.rate_at_full_use as number).toBeGreaterThan(model.rate_at_optimal as number);
        expect(res.data.isolation).toMatchObject({
          isolated_collateral: expect.any(Boolean),
          debt_ceiling_usd: expect.any(Number),
          borrowable_in_isolation: expect.any(Boolean),
        });
      }
    }
    // Morpho's loan token names its adaptive curve.
    const morpho = w.world.manifest.lending?.morpho?.[0];
    if (morpho) {
      const path = `ethereum/${morpho.protocol}/${morpho.version}/${morpho.baseAsset}`;
      const market = await get<{ assets: { symbol: string; rate_model: Record<string, unknown> | null }[] }>(
        `/data/liquidity/lending/protocol-analytics/${path}`,
      );
      const loan = market.data.assets.find((a) => a.symbol === morpho.baseAsset)!;
      expect(loan.rate_model).toMatchObject({
        kind: 'morpho-adaptive-curve',
        optimal_utilisation: 0.9,
        curve_steepness: 4,
      });
    }
  });

  it('unique supplying and borrowing wallets equal a recount from the logs and balances at that block', async () => {
    const c = client();
    let borrowersSeen = 0;
    for (const m of aave()) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      const blockNumber = BigInt(market.data.block_number);
      const range = { fromBlock: BigInt(m.startBlock), toBlock: blockNumber };
      const supplies = await c.getLogs({ address: m.pool, event: SUPPLY, ...range });
      const borrows = await c.getLogs({ address: m.pool, event: BORROW, ...range });
      for (const r of m.reserves) {
        const transfers = await c.getLogs({ address: r.aToken, event: BALANCE_TRANSFER, ...range });
        const supplyCandidates = new Set<Address>([
          ...supplies.filter((l) => l.args.reserve === r.token).map((l) => l.args.onBehalfOf!),
          ...transfers.map((l) => l.args.to!),
        ]);
        const borrowCandidates = new Set<Address>(
          borrows.filter((l) => l.args.reserve === r.token).map((l) => l.args.onBehalfOf!),
        );
        const holds = async (token: Address, who: Address) =>
          (await c.readContract({ address: token, abi: ERC20, functionName: 'balanceOf', args: [who], blockNumber })) >
          0n;
        let suppliers = 0;
        for (const a of supplyCandidates) if (await holds(r.aToken, a)) suppliers++;
        let borrowers = 0;
        for (const a of borrowCandidates) {
          if ((await holds(r.variableDebtToken, a)) || (await holds(r.stableDebtToken, a))) borrowers++;
        }
        borrowersSeen += borrowers;
        const res = await get<Asset>(`/data/liquidity/lending/asset-analytics/${marketPath(m)}/${r.token}`);
        expect(res.data.num_unique_wallets_supply, `${m.protocol} ${r.symbol} suppliers`).toBe(suppliers);
        expect(res.data.num_unique_wallets_borrow, `${m.protocol} ${r.symbol} borrowers`).toBe(borrowers);
      }
    }
    expect(borrowersSeen).toBeGreaterThan(0);
  });

  it('every borrower’s health-factor band agrees with getUserAccountData at that block', async () => {
    const c = client();
    for (const m of aave()) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      const blockNumber = BigInt(market.data.block_number);
      const borrows = await c.getLogs({
        address: m.pool,
        event: BORROW,
        fromBlock: BigInt(m.startBlock),
        toBlock: blockNumber,
      });
      const counted = new Map(BANDS.map(([band]) => [band, { positions: 0, debt: 0 }]));
      for (const who of new Set(borrows.map((l) => l.args.onBehalfOf!))) {
        const [, debtBase, , , , hf] = await c.readContract({
          address: m.pool,
          abi: POOL,
          functionName: 'getUserAccountData',
          args: [who],
          blockNumber,
        });
        if (debtBase === 0n) continue;
        const h = Number(hf) / 1e18;
        const band = BANDS.find(([, lo, hi]) => h >= lo && h < hi)![0];
        const entry = counted.get(band)!;
        entry.positions++;
        entry.debt += Number(debtBase) / 1e8;
      }
      for (const row of market.data.health_factor_distribution) {
        const expected = counted.get(row.band)!;
        expect(row.positions, `${m.protocol} ${row.band}`).toBe(expected.positions);
        expect(row.debt_usd, `${m.protocol} ${row.band}`).toBeCloseTo(expected.debt, 1);
      }
      expect([...counted.values()].reduce((s, x) => s + x.positions, 0)).toBeGreaterThan(0);
    }
  });

  it('the week’s liquidations are the LiquidationCall logs of the week, and there is at least one', async () => {
    const c = client();
    let total = 0;
    for (const m of aave()) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      const asOf = Date.parse(market.meta.as_of) / 1000;
      const logs = await c.getLogs({
        address: m.pool,
        event: LIQUIDATION_CALL,
        fromBlock: BigInt(m.startBlock),
        toBlock: BigInt(market.data.block_number),
      });
      // The object's window: the 7 UTC days of its rows, [first day's start, as_of]; count_7d the rolling 604,800 s.
      const firstDay = Math.floor(asOf / 86_400) * 86_400 - 6 * 86_400;
      const inWeek = [];
      let rolling = 0;
      for (const l of logs) {
        const at = Number((await c.getBlock({ blockNumber: l.blockNumber })).timestamp);
        if (at >= firstDay && at <= asOf) inWeek.push(l);
        if (at > asOf - 7 * 86_400 && at <= asOf) rolling++;
      }
      expect(market.data.liquidations.count, m.protocol).toBe(inWeek.length);
      expect(
        market.data.liquidations.by_day.reduce((s, d) => s + d.count, 0),
        m.protocol,
      ).toBe(inWeek.length);
      expect(market.data.liquidations.count_7d, m.protocol).toBe(rolling);
      const recent = new Set(market.data.liquidations.recent.map((r) => r.tx_hash));
      for (const l of inWeek.slice(-20)) expect(recent.has(l.transactionHash)).toBe(true);
      total += inWeek.length;
    }
    expect(total).toBeGreaterThan(0);
  });

  it('each liquidation is valued at the feed answer at its block (the feed’s latestRoundData there), else the DEX price', async () => {
    const c = client();
    const ROUND = parseAbi([
      'function latestRoundData() view returns (uint80, int256, uint256, uint256, uint80)',
      'function decimals() view returns (uint8)',
    ]);
    // The oracle area's USD feeds (the registry's pairs), by the address of the token they price.
    const feeds = new Map(
      (w.world.manifest.oracles ?? [])
        .filter((f) => f.pair.endsWith('-USD'))
        .flatMap((f) => {
          const token = w.world.manifest.tokens.find((x) => x.symbol === f.token);
          return token ? [[token.address.toLowerCase(), f] as const] : [];
        }),
    );
    let byFeed = 0;
    let legs = 0;
    for (const m of [...aave(), ...(w.world.manifest.lending?.morpho ?? [])]) {
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${marketPath(m)}`);
      for (const r of market.data.liquidations.recent) {
        const blockNumber = BigInt(r.block_number);
        const at = Number((await c.getBlock({ blockNumber })).timestamp);
        const legsOf = [
          [r.debt_asset, r.debt_repaid_token, r.debt_repaid_usd, r.debt_price],
          [r.collateral_asset, r.collateral_seized_token, r.collateral_seized_usd, r.collateral_price],
        ] as const;
        for (const [token, amount, valueUsd, price] of legsOf) {
          const where = `${m.protocol} ${r.tx_hash} ${token}`;
          expect(price, where).not.toBeNull();
          legs++;
          // The served USD is the amount × the served price (one price per leg).
          expect(valueUsd, where).toBe(roundUsd(amount * price!.price_usd));
          const feed = feeds.get(token.toLowerCase());
          if (!feed) {
            expect(price!.source, where).toBe('dex');
            continue;
          }
          // The feed's state at the liquidation's block: its newest round at or before it.
          const [, answer, , updatedAt] = await c.readContract({
            address: feed.proxy,
            abi: ROUND,
            functionName: 'latestRoundData',
            blockNumber,
          });
          const decimals = await c.readContract({ address: feed.proxy, abi: ROUND, functionName: 'decimals' });
          const fresh = at - Number(updatedAt) <= feed.heartbeatSeconds * FEED_FRESHNESS_FACTOR;
          if (!fresh) {
            expect(price!.source, where).toBe('dex');
            continue;
          }
          byFeed++;
          expect(price, where).toMatchObject({
            source: 'oracle',
            price_usd: roundPriceUsd(Number(answer) / 10 ** decimals),
          });
          expect(price!.source_ref.toLowerCase(), where).toBe(feed.proxy.toLowerCase());
          expect(valueUsd, where).toBe(roundUsd(amount * (Number(answer) / 10 ** decimals)));
        }
      }
    }
    expect(legs).toBeGreaterThan(0);
    expect(byFeed).toBeGreaterThan(0);
  });

  it('Morpho: per isolated market, borrowed and collateral equal Morpho’s own state and positions at that block', async () => {
    const c = client();
    const MORPHO = parseAbi([
      'function market(bytes32 id) view returns (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee)',
      'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
    ]);
    const IRM = parseAbi([
      'function borrowRateView((address loanToken, address collateralToken, address oracle, address irm, uint256 lltv) marketParams, (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee) market) view returns (uint256)',
    ]);
    const SUPPLY_COLLATERAL = parseAbiItem(
      'event SupplyCollateral(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets)',
    );
    const MORPHO_BORROW = parseAbiItem(
      'event Borrow(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets, uint256 shares)',
    );
    const views = w.world.manifest.lending?.morpho ?? [];
    expect(views.length).toBe(1);
    for (const v of views) {
      const path = `ethereum/${v.protocol}/${v.version}/${v.baseAsset}`;
      const market = await get<Market>(`/data/liquidity/lending/protocol-analytics/${path}`);
      const blockNumber = BigInt(market.data.block_number);
      const block = await c.getBlock({ blockNumber });
      const range = { fromBlock: BigInt(v.startBlock), toBlock: blockNumber };
      const collateralLogs = await c.getLogs({ address: v.morpho, event: SUPPLY_COLLATERAL, ...range });
      const borrowLogs = await c.getLogs({ address: v.morpho, event: MORPHO_BORROW, ...range });
      let borrowedTotal = 0;
      const borrowers = new Set<string>();
      for (const x of v.markets) {
        const state = await c.readContract({
          address: v.morpho,
          abi: MORPHO,
          functionName: 'market',
          args: [x.id],
          blockNumber,
        });
        const [, , totalBorrow, totalBorrowShares, lastUpdate, fee] = state;
        const rate = await c.readContract({
          address: x.irm,
          abi: IRM,
          functionName: 'borrowRateView',
          args: [
            {
              loanToken: x.loanToken,
              collateralToken: x.collateralToken,
              oracle: x.oracle,
              irm: x.irm,
              lltv: BigInt(x.lltv),
            },
            {
              totalSupplyAssets: state[0],
              totalSupplyShares: state[1],
              totalBorrowAssets: totalBorrow,
              totalBorrowShares,
              lastUpdate,
              fee,
            },
          ],
          blockNumber,
        });
        // Interest from the market's last update to the block, continuously compounded (Morpho uses a 3-term Taylor
        // series of the same exponential: equal to well below a millionth over hours).
        const elapsed = Number(block.timestamp) - Number(lastUpdate);
        borrowedTotal += Number(totalBorrow) * Math.exp((Number(rate) / 1e18) * elapsed);
        // Collateral: the sum of the positions of everyone who ever posted it.
        const owners = new Set(collateralLogs.filter((l) => l.args.id === x.id).map((l) => l.args.onBehalf!));
        let collateral = 0n;
        for (const o of owners) {
          const [, , held] = await c.readContract({
            address: v.morpho,
            abi: MORPHO,
            functionName: 'position',
            args: [x.id, o],
            blockNumber,
          });
          collateral += held;
        }
        const asset = await get<Asset>(`/data/liquidity/lending/asset-analytics/${path}/${x.collateralToken}`);
        expect(asset.data.total_supply_raw, `collateral ${x.collateralSymbol}`).toBe(collateral.toString());
        for (const b of new Set(borrowLogs.filter((l) => l.args.id === x.id).map((l) => l.args.onBehalf!))) {
          const [, shares] = await c.readContract({
            address: v.morpho,
            abi: MORPHO,
            functionName: 'position',
            args: [x.id, b],
            blockNumber,
          });
          if (shares > 0n) borrowers.add(b.toLowerCase());
        }
      }
      const loan = await get<Asset>(`/data/liquidity/lending/asset-analytics/${path}/${v.markets[0]!.loanToken}`);
      expect(Number(loan.data.total_borrow_raw) / borrowedTotal).toBeCloseTo(1, 6);
      expect(loan.data.num_unique_wallets_borrow).toBe(borrowers.size);
      expect(borrowers.size).toBeGreaterThan(0);
    }
  });

  it('serves seven daily scores per market, the current one first, and ranks all markets', async () => {
    for (const m of aave()) {
      const res = await get<Score[]>(
        `/scores/liquidity/lending/protocol-score/ethereum/${m.protocol}/${m.version.toLowerCase()}/${m.baseAsset.toLowerCase()}`,
      );
      expect(res.data).toHaveLength(7);
      expect(res.data[0]!.score).not.toBeNull();
      // The five past day ends since the world's genesis (5 days ago, 14:00) were read from the chain's state at
      // each day's last block; the sixth falls before genesis and is a gap.
      expect(res.data.slice(1, 6).map((x) => x.score === null)).toEqual([false, false, false, false, false]);
      expect(res.data[6]!.score).toBeNull();
      expect(res.data[0]!.components.map((x) => x.name)).toContain('liquidation_liquidity');
    }
    const all = await get<Row[]>('/scores/liquidity/lending/all-markets');
    expect(all.data.map((x) => x.protocol).sort()).toEqual(['aave', 'morpho', 'spark']);
    const overview = await get<Score[]>('/scores/liquidity/lending/market-overview/aave');
    expect(overview.data).toHaveLength(7);
  });

  it('every published lending figure keeps supply_rate ≤ borrow_rate × utilisation, and Morpho is priced and scored', async () => {
    const markets = (
      await get<{ chain: string; protocol: string; version: string; base_asset_symbol: string }[]>(
        '/data/liquidity/lending/available-markets',
      )
    ).data;
    let checked = 0;
    for (const m of markets) {
      const path = `${m.chain}/${m.protocol}/${m.version}/${m.base_asset_symbol}`;
      const analytics = await get<
        Market & { total_supply_usd: number | null; total_borrow_usd: number | null; gap_reasons: Row }
      >(`/data/liquidity/lending/protocol-analytics/${path}`);
      for (const a of analytics.data.assets) {
        const asset = (await get<Asset>(`/data/liquidity/lending/asset-analytics/${path}/${a.token_address}`)).data;
        const supplyRate = asset.supply_rate as number | null;
        const borrowRate = asset.borrow_rate as number | null;
        if (supplyRate === null || borrowRate === null) continue;
        const supplied = Number(BigInt(asset.total_supply_raw));
        const u = supplied > 0 ? Number(BigInt(asset.total_borrow_raw)) / supplied : 0;
        expect(supplyRate, `${path} ${a.token_address}`).toBeLessThanOrEqual(borrowRate * u * (1 + 1e-9) + 1e-12);
        checked++;
      }
      // Every market of the sandbox is priced: totals known, borrowers in the health bands, a score.
      expect(analytics.data.total_supply_usd, path).not.toBeNull();
      // Supply is lendable supply (the borrowable assets' rows); deposits that cannot be lent out are apart, and the
      // market's utilisation is exactly borrowed over supplied (one utilisation per market).
      const rows = analytics.data.assets as unknown as {
        borrowing_enabled: boolean;
        total_supply_usd: number;
      }[];
      const sum = (xs: typeof rows) => xs.reduce((t, x) => t + x.total_supply_usd, 0);
      const served = analytics.data as unknown as { total_collateral_only_usd: number; utilisation: number };
      expect(analytics.data.total_supply_usd!, path).toBeCloseTo(sum(rows.filter((x) => x.borrowing_enabled)), 0);
      expect(served.total_collateral_only_usd, path).toBeCloseTo(sum(rows.filter((x) => !x.borrowing_enabled)), 0);
      if (analytics.data.total_supply_usd! > 0) {
        expect(served.utilisation, path).toBeCloseTo(
          analytics.data.total_borrow_usd! / analytics.data.total_supply_usd!,
          5,
        );
      }
      if (m.protocol === 'morpho') expect(served.total_collateral_only_usd, path).toBeGreaterThan(0);
      expect(analytics.data.total_borrow_usd, path).not.toBeNull();
      if (analytics.data.assets.some((a) => BigInt(a.total_borrow_raw) > 0n)) {
        expect(
          analytics.data.health_factor_distribution.reduce((s, b) => s + b.positions, 0),
          path,
        ).toBeGreaterThan(0);
      }
      const scores = await get<(Score & { gap_reason: string | null; protocol: string })[]>(
        `/scores/liquidity/lending/protocol-score/${m.chain}/${m.protocol}/${m.version.toLowerCase()}/${m.base_asset_symbol.toLowerCase()}`,
      );
      expect(scores.data[0]!.score, path).not.toBeNull();
      expect(scores.data.every((r) => r.protocol === m.protocol)).toBe(true);
      expect(scores.data.every((r) => r.score !== null || r.gap_reason !== null)).toBe(true);
    }
    expect(checked).toBeGreaterThan(0);
  });

  // Last: it changes the chain (a price shock, then a liquidation by the test itself).
  it('a price shock lowers the market’s score; liquidating the positions it sank appears in the liquidations and raises it', async () => {
    const c = client();
    const m = aave().find((x) => x.protocol === 'aave')!;
    const weth = m.reserves.find((r) => r.symbol === 'WETH')!;
    const scorePath = `/scores/liquidity/lending/protocol-score/ethereum/aave/v3/usdc`;
    const analyticsPath = `/data/liquidity/lending/protocol-analytics/${marketPath(m)}`;
    const deployer = privateKeyToAccount(DEPLOYER_PRIVATE_KEY);
    const wallet = createWalletClient({ account: deployer, transport: http(w.world.rpcUrl) });
    const chain = {
      id: w.world.chainId,
      name: 'sandbox',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [w.world.rpcUrl] } },
    } as const;
    let head = Number((await c.getBlock()).timestamp);
    /** Sends one transaction, mines it alone 10 minutes later (the world mines by hand) and checks its receipt. */
    const send = async (request: {
      address: Address;
      abi: readonly unknown[];
      functionName: string;
      args: readonly unknown[];
    }) => {
      const hash: Hex = await wallet.writeContract({ ...(request as object), chain, gas: 3_000_000n } as never);
      head += 600;
      await c.request({ method: 'evm_mine' as never, params: [head] as never });
      const receipt = await c.getTransactionReceipt({ hash });
      expect(receipt.status, request.functionName).toBe('success');
      return receipt;
    };
    const refresh = async () => {
      head += 600;
      await c.request({ method: 'evm_mine' as never, params: [head] as never });
      await dexJobs.all();
      await jobs.all();
      await t.sync();
      const score = (await get<Score[]>(scorePath)).data[0]!;
      const market = (await get<Market>(analyticsPath)).data;
      return { score, market };
    };

    const before = await refresh();
    preShockBlock = before.market.block_number;
    // ETH falls 30 %, and wstETH with it (the market prices both): stablecoin borrowers on ETH sink, loopers do not.
    const wsteth = m.reserves.find((r) => r.symbol === 'wstETH')!;
    for (const feed of [weth.priceSource, wsteth.priceSource]) {
      // The markets read the feeds' proxies; rounds are transmitted to the aggregator behind each.
      const price = await c.readContract({ address: feed, abi: FEED, functionName: 'latestAnswer' });
      const aggregator = await c.readContract({ address: feed, abi: FEED, functionName: 'aggregator' });
      await send({ address: aggregator, abi: FEED, functionName: 'transmit', args: [(price * 70n) / 100n] });
    }
    const shocked = await refresh();
    const band = (x: typeof before) => x.market.health_factor_distribution[0]!;
    expect(band(shocked).positions, 'positions under 1.0 after a 30 % ETH drop').toBeGreaterThan(0);
    expect(shocked.score.score!).toBeLessThan(before.score.score!);

    // Liquidate every position the shock sank, as a liquidator would (repeatedly: Aave repays half the debt at once).
    const borrowers = new Set(
      (await c.getLogs({ address: m.pool, event: BORROW, fromBlock: BigInt(m.startBlock) })).map(
        (l) => l.args.onBehalfOf!,
      ),
    );
    let liquidations = 0;
    for (const who of borrowers) {
      for (let round = 0; round < 6; round++) {
        const [, debtBase, , , , hf] = await c.readContract({
          address: m.pool,
          abi: POOL,
          functionName: 'getUserAccountData',
          args: [who],
        });
        if (debtBase === 0n || hf >= 10n ** 18n) break;
        const debt = [];
        for (const r of m.reserves) {
          const owed = await c.readContract({
            address: r.variableDebtToken,
            abi: ERC20,
            functionName: 'balanceOf',
            args: [who],
          });
          if (owed > 0n) debt.push(r);
        }
        const collateral = [];
        for (const r of m.reserves) {
          const held = await c.readContract({ address: r.aToken, abi: ERC20, functionName: 'balanceOf', args: [who] });
          if (held > 0n) collateral.push(r);
        }
        const d = debt.find((r) => r.symbol !== 'WETH') ?? debt[0];
        // Bad debt (no collateral left) cannot be liquidated; WETH9 debt cannot be minted for the test's liquidator.
        if (!d || !collateral.length || d.symbol === 'WETH') break;
        await send({ address: d.token, abi: ERC20, functionName: 'mint', args: [10n ** 30n] });
        await send({ address: d.token, abi: ERC20, functionName: 'approve', args: [m.pool, maxUint256] });
        const c0 = collateral.find((r) => r.symbol === 'WETH') ?? collateral[0]!;
        await send({
          address: m.pool,
          abi: POOL,
          functionName: 'liquidationCall',
          args: [c0.token, d.token, who, maxUint256, false],
        });
        liquidations++;
      }
    }
    expect(liquidations).toBeGreaterThan(0);
    const after = await refresh();
    expect(after.market.liquidations.count).toBe(shocked.market.liquidations.count + liquidations);
    expect(band(after).debt_usd).toBeLessThan(band(shocked).debt_usd);
    expect(after.score.score!).toBeGreaterThan(shocked.score.score!);
  });

  // After the shock: prices moved by 30 % and liquidations changed some positions since the pre-shock snapshot.
  it('an incremental snapshot (issue 30) reads only the accounts events touched, and equals a full read at the block', async () => {
    const m = lendingTargets(w.env).find((x) => x.protocol === 'aave')!;
    const evm = w.env.sources.get('evm')!.source(m.chain);
    const repo = new LendingRepository(t.store.db);
    const base = await repo.snapshotAt(m.chain, m.pool, preShockBlock!);
    expect(base?.carry, 'the pre-shock snapshot carries its participants').toBeDefined();
    const head = await evm.getBlock(Number((await client().getBlock()).number));
    const block = { number: head!.number, timestamp: head!.timestamp };
    /** Per-account reads of a snapshot: one getUserConfiguration per account read. */
    const counted = () => {
      const counter = { accounts: 0 };
      const source = {
        multicall: (args: { contracts: readonly { functionName: string }[] }) => {
          counter.accounts += args.contracts.filter((c) => c.functionName === 'getUserConfiguration').length;
          return evm.multicall(args as never);
        },
      };
      return { counter, source: source as unknown as typeof evm };
    };
    const since = await repo.eventsTouching(m.chain, m.pool, base!.blockNumber, block.number);
    const incremental = incrementalAccounts(base!.carry!, since);
    const inc = counted();
    const derived = await readAaveSnapshot(inc.source, m, incremental, block);
    const all = counted();
    const full = await readAaveSnapshot(
      all.source,
      m,
      { participants: await repo.participants(m.chain, m.pool, block.number) },
      block,
    );
    // Same figures: balances from scaled balances × this block's indices, account data as the Pool derives it.
    expect(derived.positions).toEqual(full.positions);
    expect(derived.carry).toEqual(full.carry);
    expect(derived.reserves).toEqual(full.reserves);
    expect(derived.eModeCategories).toEqual(full.eModeCategories);
    // Health factors moved with the prices for accounts not read: the shock is seen without reading them.
    const carriedKeys = Object.keys(base!.carry!).filter(
      (k) => !incremental.touched!.has(k) && !base!.carry![k]!.alwaysRead,
    );
    expect(carriedKeys.length).toBeGreaterThan(0);
    const moved = derived.positions.filter(
      (p) =>
        carriedKeys.includes(p.account) &&
        p.healthFactor !== base!.positions.find((q) => q.account === p.account)?.healthFactor,
    );
    expect(moved.length, 'carried borrowers whose health factor the shock moved').toBeGreaterThan(0);
    // Reads: the touched and always-read accounts only, against every participant in the full read.
    const reread = Object.keys(incremental.base!).filter((k) => !carriedKeys.includes(k)).length;
    expect(all.counter.accounts).toBe(full.carry ? Object.keys(full.carry).length : -1);
    expect(inc.counter.accounts).toBe(
      reread + [...incremental.participants.accounts.keys()].filter((k) => !base!.carry![k]).length,
    );
    expect(inc.counter.accounts).toBeLessThan(all.counter.accounts);
  });
});
