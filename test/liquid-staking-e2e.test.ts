import { type Address, createPublicClient, http, parseAbi, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { lendingArea } from '../src/areas/lending/index.js';
import { lendingTargets } from '../src/areas/lending/public.js';
import { liquidStakingArea } from '../src/areas/liquid-staking/index.js';
import type { ManifestAaveMarket, ManifestLiquidStaking } from '../src/sandbox/world/manifest.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { type LendingTestWorld, lendingWorld } from './support/lending-world.js';

/**
 * End to end on the sandbox's lending world: DEX jobs → lending jobs → liquid-staking.compute → API. The key
 * figures are recomputed here with viem alone, at the block each document names: the pool's token balances
 * (balanceOf), its price (slot0), the exchange rate (stEthPerToken), and the LST collateral of the Aave markets from
 * the aToken holders (recounted from the aToken's Transfer logs), their collateral flags and their WETH debt.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string; methodology?: string };
}
type Row = Record<string, unknown>;
interface ScoreRecord extends Row {
  score: number | null;
  partial: boolean;
  components: { name: string; value: number | null; inputs: Row }[];
}

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const STAKED = parseAbi(['function stEthPerToken() view returns (uint256)']);
const V3 = parseAbi([
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function token0() view returns (address)',
]);
const AAVE_POOL = parseAbi([
  'function getReservesList() view returns (address[])',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function getUserConfiguration(address user) view returns ((uint256 data))',
]);
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const MORPHO = parseAbi([
  'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
]);
const SUPPLY_COLLATERAL = parseAbiItem(
  'event SupplyCollateral(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets)',
);
const SWAP = parseAbiItem(
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
);

describe('liquid staking end to end on the sandbox', () => {
  let w: LendingTestWorld;
  let t: TestApp;
  let lst: ManifestLiquidStaking;
  const client = () => createPublicClient({ transport: http(w.rpcUrl) });
  const lstPool = () => lst.pools[0]!.toLowerCase();

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    w = await lendingWorld();
    lst = w.liquidStaking[0]!;
    t = await testApp();
    await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
    await areaRunner(lendingArea, w.env, t.store, t.clock, () => t.sync()).all();
    const run = areaRunner(liquidStakingArea, w.env, t.store, t.clock, () => t.sync()).run;
    expect(await run('liquid-staking.ingest')).toMatch(/rates read/);
    const summary = await run('liquid-staking.compute');
    expect(summary).toMatch(/^published/);
    // Nothing changed: the second run skips.
    expect(await run('liquid-staking.compute')).toMatch(/^up to date/);
    await t.sync();
  }, 360_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  it('lists the LST pools by exchange and the lending markets that list the token', async () => {
    const dexes = await get<{ protocol: string; version: string; pool_addresses: string[] }[]>(
      '/data/liquidity/liquid-staking/available-dexes-exposure',
    );
    const listed = dexes.data.flatMap((d) => d.pool_addresses).sort();
    expect(listed).toEqual(lst.pools.map((p) => p.toLowerCase()).sort());
    expect(listed.length).toBeGreaterThan(0);

    const markets = await get<{ protocol: string; base_asset_symbol: string; liquid_staking_token: Row }[]>(
      '/data/liquidity/liquid-staking/available-lending-markets-exposure',
    );
    const expected = lendingTargets(w.env)
      .filter((m) => m.assets.some((a) => a.address === lst.token.toLowerCase()))
      .map((m) => m.protocol)
      .sort();
    expect(markets.data.map((m) => m.protocol).sort()).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['aave', 'spark']));
    for (const m of markets.data) {
      expect(m.liquid_staking_token).toMatchObject({ token_address: lst.token.toLowerCase(), symbol: lst.symbol });
    }
  });

  it('pool analytics equal balances, price and exchange rate read from the chain at the snapshot block', async () => {
    for (const address of lst.pools.map((p) => p.toLowerCase() as Address)) {
      const res = await get<Row & { depth: { down: Row; up: Row; price_move_pct: number }[] }>(
        `/data/liquidity/liquid-staking/pool-analytics-in-dex/${address}`,
      );
      const d = res.data;
      const blockNumber = BigInt(d.snapshot_block as number);
      const c = client();
      const [lstBalance, wethBalance, rate] = await Promise.all([
        c.readContract({ address: lst.token, abi: ERC20, functionName: 'balanceOf', args: [address], blockNumber }),
        c.readContract({
          address: lst.underlying,
          abi: ERC20,
          functionName: 'balanceOf',
          args: [address],
          blockNumber,
        }),
        c.readContract({ address: lst.token, abi: STAKED, functionName: 'stEthPerToken', blockNumber }),
      ]);
      expect(d.lst_balance_raw).toBe(lstBalance.toString());
      expect(d.underlying_balance_raw).toBe(wethBalance.toString());
      expect(d.exchange_rate_raw).toBe(rate.toString());
      expect(d.exchange_rate as number).toBeCloseTo(Number(rate) / 1e18, 12);
      // Price: underlying per LST from slot0 (both tokens have 18 decimals).
      const [slot0, token0] = await Promise.all([
        c.readContract({ address, abi: V3, functionName: 'slot0', blockNumber }),
        c.readContract({ address, abi: V3, functionName: 'token0', blockNumber }),
      ]);
      const p = (Number(slot0[0]) / 2 ** 96) ** 2;
      const lstPerPrice = token0.toLowerCase() === lst.token.toLowerCase() ? p : 1 / p;
      expect(d.pool_price as number).toBeCloseTo(lstPerPrice, 9);
      expect(d.price_vs_peg as number).toBeCloseTo(lstPerPrice / (Number(rate) / 1e18), 5);
      // Depth grows with the move, both ways.
      const down = d.depth.map((x) => x.down.token_in as number);
      const up = d.depth.map((x) => x.up.token_in as number);
      expect(d.depth.map((x) => x.price_move_pct)).toEqual([1, 2, 5]);
      expect(down[0]!).toBeGreaterThan(0);
      expect(down[0]!).toBeLessThan(down[1]!);
      expect(down[1]!).toBeLessThan(down[2]!);
      expect(up[0]!).toBeLessThan(up[2]!);
      expect(res.meta.as_of).toBe(d.as_of);
      // LST traded over 7 days, recounted from the pool's Swap logs and their blocks' timestamps.
      const asOf = Date.parse(d.as_of as string) / 1000;
      const logs = await c.getLogs({ address, event: SWAP, fromBlock: 0n, toBlock: blockNumber });
      const times = new Map<bigint, number>();
      let lstTraded = 0n;
      let count = 0;
      const lstIs0 = token0.toLowerCase() === lst.token.toLowerCase();
      for (const log of logs) {
        let time = times.get(log.blockNumber);
        if (time === undefined) {
          time = Number((await c.getBlock({ blockNumber: log.blockNumber })).timestamp);
          times.set(log.blockNumber, time);
        }
        if (time <= asOf - 7 * 86_400 || time > asOf) continue;
        const amount = lstIs0 ? log.args.amount0! : log.args.amount1!;
        lstTraded += amount < 0n ? -amount : amount;
        count++;
      }
      expect(d.swap_count_7d).toBe(count);
      expect(d.volume_7d_lst as number).toBeCloseTo(Number(lstTraded) / 1e18, 6);
    }
  });

  /** LST collateral and looped collateral of an Aave market at a block, recounted from its aToken holders. */
  async function aaveTruth(m: ManifestAaveMarket, blockNumber: bigint) {
    const c = client();
    const reserve = m.reserves.find((r) => r.token.toLowerCase() === lst.token.toLowerCase())!;
    const weth = m.reserves.find((r) => r.token.toLowerCase() === lst.underlying.toLowerCase())!;
    const logs = await c.getLogs({ address: reserve.aToken, event: TRANSFER, fromBlock: 0n, toBlock: blockNumber });
    const holders = [...new Set(logs.map((l) => l.args.to!.toLowerCase()))].filter((a) => !/^0x0{40}$/.test(a));
    const list = (
      await c.readContract({ address: m.pool, abi: AAVE_POOL, functionName: 'getReservesList', blockNumber })
    ).map((a) => a.toLowerCase());
    const id = BigInt(list.indexOf(lst.token.toLowerCase()));
    let collateral = 0n;
    let looped = 0n;
    let positions = 0;
    /** Loopers whose only collateral is the LST: under a depeg d their health factor is exactly HF × (1 − d). */
    const lstOnlyLoopers: { hf: number; debtUsd: number }[] = [];
    let mixedLoopers = 0;
    for (const holder of holders as Address[]) {
      const [balance, config, debt] = await Promise.all([
        c.readContract({ address: reserve.aToken, abi: ERC20, functionName: 'balanceOf', args: [holder], blockNumber }),
        c.readContract({
          address: m.pool,
          abi: AAVE_POOL,
          functionName: 'getUserConfiguration',
          args: [holder],
          blockNumber,
        }),
        c.readContract({
          address: weth.variableDebtToken,
          abi: ERC20,
          functionName: 'balanceOf',
          args: [holder],
          blockNumber,
        }),
      ]);
      const usedAsCollateral = ((config.data >> (id * 2n + 1n)) & 1n) === 1n;
      if (balance === 0n || !usedAsCollateral) continue;
      positions++;
      collateral += balance;
      if (debt === 0n) continue;
      looped += balance;
      const collateralBits = list.filter((_, i) => ((config.data >> (BigInt(i) * 2n + 1n)) & 1n) === 1n).length;
      if (collateralBits !== 1) {
        mixedLoopers++;
        continue;
      }
      const data = await c.readContract({
        address: m.pool,
        abi: AAVE_POOL,
        functionName: 'getUserAccountData',
        args: [holder],
        blockNumber,
      });
      lstOnlyLoopers.push({ hf: Number(data[5]) / 1e18, debtUsd: Number(data[1]) / 1e8 });
    }
    return {
      collateral: Number(collateral) / 1e18,
      looped: Number(looped) / 1e18,
      positions,
      lstOnlyLoopers,
      mixedLoopers,
    };
  }

  it('LST collateral in each Aave market equals the aToken balances of its holders using it as collateral', async () => {
    let loopsRecounted = 0;
    let liquidatedInScenarios = 0;
    for (const m of w.aave) {
      const base = `ethereum/${m.protocol}/${m.version}/${m.baseAsset}`;
      const all = await get<Row>(`/data/liquidity/liquid-staking/asset-analytics-in-lending/${base}/false`);
      const loops = await get<Row>(`/data/liquidity/liquid-staking/asset-analytics-in-lending/${base}/true`);
      expect(all.data.snapshot_block).toBe(loops.data.snapshot_block);
      const truth = await aaveTruth(m, BigInt(all.data.snapshot_block as number));
      const label = m.protocol;
      expect(all.data.lst_collateral_token as number, label).toBeCloseTo(truth.collateral, 6);
      expect(loops.data.lst_collateral_token as number, label).toBeCloseTo(truth.looped, 6);
      expect(all.data.position_count, label).toBe(truth.positions);
      expect(truth.looped, `${label}: the world has loopers`).toBeGreaterThan(0);
      expect(all.data.looped_share as number).toBeCloseTo(truth.looped / truth.collateral, 5);
      // The exchange rate at the lending snapshot's block.
      const rate = await client().readContract({
        address: lst.token,
        abi: STAKED,
        functionName: 'stEthPerToken',
        blockNumber: BigInt(all.data.snapshot_block as number),
      });
      expect(all.data.exchange_rate as number).toBeCloseTo(Number(rate) / 1e18, 12);
      // Looped positions with the LST as their only collateral: HF' = HF × (1 − d), recounted from getUserAccountData.
      if (truth.mixedLoopers === 0 && truth.lstOnlyLoopers.length > 0) {
        loopsRecounted++;
        const scenarios = loops.data.depeg_scenarios as {
          depeg_pct: number;
          positions_liquidatable: number;
          debt_at_risk_usd: number;
        }[];
        for (const s of scenarios) {
          const hit = truth.lstOnlyLoopers.filter((p) => p.hf * (1 - s.depeg_pct / 100) < 1);
          liquidatedInScenarios += hit.length;
          expect(s.positions_liquidatable, `${label} ${s.depeg_pct} %`).toBe(hit.length);
          expect(s.debt_at_risk_usd, `${label} ${s.depeg_pct} %`).toBeCloseTo(
            hit.reduce((x, p) => x + p.debtUsd, 0),
            2,
          );
        }
      }
      // Deeper depegs liquidate at least as much debt.
      const atRisk = (all.data.depeg_scenarios as { depeg_pct: number; debt_at_risk_usd: number }[]).map(
        (s) => s.debt_at_risk_usd,
      );
      expect((all.data.depeg_scenarios as { depeg_pct: number }[]).map((s) => s.depeg_pct)).toEqual([1, 2, 5, 10]);
      for (let i = 1; i < atRisk.length; i++) expect(atRisk[i]!).toBeGreaterThanOrEqual(atRisk[i - 1]!);
    }
    // The world's loopers post only the LST: their depeg outcome was recounted, and some deepest depeg liquidates.
    expect(loopsRecounted).toBeGreaterThan(0);
    expect(liquidatedInScenarios).toBeGreaterThan(0);
  });

  it('Morpho: LST collateral equals the positions of its LST-collateral markets, recounted from SupplyCollateral logs', async () => {
    const c = client();
    let checked = 0;
    for (const v of w.morpho) {
      const markets = v.markets.filter((x) => x.collateralToken.toLowerCase() === lst.token.toLowerCase());
      if (!markets.length) continue;
      const base = `ethereum/${v.protocol}/${v.version}/${v.baseAsset}`;
      const all = await get<Row>(`/data/liquidity/liquid-staking/asset-analytics-in-lending/${base}/false`);
      const blockNumber = BigInt(all.data.snapshot_block as number);
      const logs = await c.getLogs({
        address: v.morpho,
        event: SUPPLY_COLLATERAL,
        fromBlock: BigInt(v.startBlock),
        toBlock: blockNumber,
      });
      let collateral = 0n;
      let positions = 0;
      for (const x of markets) {
        for (const owner of new Set(logs.filter((l) => l.args.id === x.id).map((l) => l.args.onBehalf!))) {
          const [, , held] = await c.readContract({
            address: v.morpho,
            abi: MORPHO,
            functionName: 'position',
            args: [x.id, owner],
            blockNumber,
          });
          if (held === 0n) continue;
          collateral += held;
          positions++;
        }
      }
      expect(all.data.lst_collateral_token as number).toBeCloseTo(Number(collateral) / 1e18, 6);
      expect(all.data.position_count).toBe(positions);
      expect(all.data.liquidation_threshold as number).toBeCloseTo(Number(markets[0]!.lltv) / 1e18, 9);
      // Issue 13, item 1: Morpho's LST collateral has a USD value (never 0 for want of a price), priced by the one
      // policy (the market's oracle × the loan token's price, else DEX), and the score is not a default 1.0.
      const price = all.data.lst_price as Row | null;
      expect(price, JSON.stringify(all.data.gap_reasons)).not.toBeNull();
      expect(all.data.lst_collateral_usd as number).toBeCloseTo(
        (all.data.lst_collateral_token as number) * (price!.price_usd as number),
        2,
      );
      const scores = await get<ScoreRecord[]>(`/scores/liquidity/liquid-staking/exposure-in-lending/${base}/false`);
      for (const r of scores.data) {
        expect(r).toMatchObject({ chain: 'ethereum', protocol: v.protocol, base_asset: v.baseAsset });
        if (r.score === null) expect(r.gap_reason).toBeTruthy();
      }
      expect(scores.data[0]!.timestamp).toBe(scores.meta.as_of);
      console.log(
        `[lst-e2e] ${base}: lst_collateral_token=${all.data.lst_collateral_token} lst_collateral_usd=${all.data.lst_collateral_usd} ` +
          `price=${JSON.stringify(price)} debt_usd=${all.data.debt_usd} scores=${scores.data
            .map((r) => `${r.score}/${r.grade}/${r.gap_reason ?? ''}`)
            .join(' ')}`,
      );
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('scores: 7 daily records in [0, 1] with their methodology', async () => {
    const m = w.aave[0]!;
    for (const flag of ['true', 'false']) {
      const res = await get<ScoreRecord[]>(
        `/scores/liquidity/liquid-staking/exposure-in-lending/ethereum/${m.protocol}/${m.version}/${m.baseAsset}/${flag}`,
      );
      expect(res.data).toHaveLength(7);
      expect(res.data[0]!.partial).toBe(true);
      expect(res.data[0]!.score).not.toBeNull();
      expect(res.data[0]!.score!).toBeGreaterThanOrEqual(0);
      expect(res.data[0]!.score!).toBeLessThanOrEqual(1);
      expect(res.meta.methodology).toBe('liquid-staking.lending-exposure@1.3.0');
    }
    const pool = lst.pools[0]!.toLowerCase();
    const res = await get<ScoreRecord[]>(`/scores/liquidity/liquid-staking/dex-pool-scores/${pool}`);
    expect(res.data).toHaveLength(7);
    expect(res.meta.methodology).toBe('liquid-staking.dex-pool@1.2.0');
    expect(res.data[0]!.score).not.toBeNull();
  });

  it('the depeg episode shows in the pool score history: the peg component is worse on a depeg day than now', async () => {
    const pool = lst.pools[0]!.toLowerCase();
    const res = await get<ScoreRecord[]>(`/scores/liquidity/liquid-staking/dex-pool-scores/${pool}`);
    const discount = (r: ScoreRecord) =>
      r.components.find((c) => c.name === 'peg_deviation')?.inputs.discount_pct as number | undefined;
    const discounts = res.data.map(discount);
    const worst = Math.max(...discounts.filter((x): x is number => typeof x === 'number'));
    // The scenario trades the token ~6 % below its rate during the episode; at as_of it is back near par.
    expect(worst).toBeGreaterThan(2);
    expect(Math.abs(discounts[0]!)).toBeLessThan(worst);
    const worstDay = res.data[discounts.indexOf(worst)]!;
    expect(worstDay.score!).toBeLessThan(res.data[0]!.score!);
  });

  it('unknown pools and markets: 404 with the listing', async () => {
    const res = await get<unknown>(
      '/data/liquidity/liquid-staking/pool-analytics-in-dex/0x000000000000000000000000000000000000dead',
      404,
    );
    expect(JSON.stringify(res)).toContain('available-dexes-exposure');
  });

  it('a chain that moves between the rates and the computation never holds it back: it computes on the facts whose rates were read', async () => {
    const dex = areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync());
    const lstJobs = areaRunner(liquidStakingArea, w.env, t.store, t.clock, () => t.sync());
    const before = (await get<Row>('/data/liquidity/liquid-staking/pool-analytics-in-dex/' + lstPool())).meta.as_of;
    // The chain moves on and the DEX publishes a newer head; the rates were read for the older facts.
    w.clock.advance(3600);
    await w.world.sync();
    await dex.all();
    // Nothing new to compute on yet (the pinned facts did not change): the published documents stay.
    expect(await lstJobs.run('liquid-staking.compute')).toMatch(/^up to date/);
    // The rates of the newer facts, then the computation on them, whatever the chain does meanwhile.
    expect(await lstJobs.run('liquid-staking.ingest')).toMatch(/rates read/);
    w.clock.advance(3600);
    await w.world.sync();
    await dex.all();
    expect(await lstJobs.run('liquid-staking.compute')).toMatch(/^published/);
    await t.sync();
    const after = (await get<Row>('/data/liquidity/liquid-staking/pool-analytics-in-dex/' + lstPool())).meta.as_of;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  }, 240_000);
});
