/**
 * Pure compute of the lending area: market snapshots, liquidation events, DEX prices and depth in (loaded by
 * `LendingRepository.computeInput`); the payloads of the 7 lending paths out, in the shapes of schema.ts. Nothing
 * here reads a store or a chain.
 */
import { gradeOf, roundTo } from '../../core/score.js';
import { dailyHistoryInstants, isoSeconds, utcDate } from '../../core/time.js';
import type { LendingEventFact, MarketSnapshot, ReserveSnapshot } from './facts.js';
import type {
  AllMarketsScoreEntry,
  AssetAnalyticsPayload,
  AvailableMarketEntry,
  LendingScoreEntry,
  LiquidationDayEntry,
  LiquidationSummary,
  MarketAnalyticsPayload,
  MarketOverviewPayload,
} from './schema.js';
import { gapScore, healthDistribution, LENDING_METHODOLOGY, scoreMarket } from './score.js';
import type { LendingMarketTarget } from './targets.js';
import { toUnits } from './units.js';

export interface MarketInput {
  readonly source: LendingMarketTarget;
  /** The newest snapshot (undefined: none yet). */
  readonly latest: MarketSnapshot | undefined;
  /** Snapshots at the end of the 6 previous UTC days (newest first), undefined where none was taken. */
  readonly daily: readonly (MarketSnapshot | undefined)[];
  /** Liquidations with timestamp in (asOf − 7 d, asOf]. */
  readonly liquidations: readonly LendingEventFact[];
  /** USD price of a whole token at an instant (hourly), for liquidation volumes; null when unknown. */
  readonly priceAt: (token: string, t: number) => number | null;
  /** USD value of `asset` sellable on the indexed DEX pools within `maxImpact` (fraction) price impact. */
  readonly depthUsd: (asset: string, maxImpact: number) => number | null;
}

export interface LendingInput {
  /** Unix seconds: the oldest of the markets' newest snapshots (every window ends here). */
  readonly asOf: number;
  readonly markets: readonly MarketInput[];
}

export interface MarketKey {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  readonly baseAsset: string;
}

/** The payloads of the 7 lending paths (shapes of schema.ts), with the keys of their paths. */
export interface LendingOutput {
  readonly available: AvailableMarketEntry[];
  readonly assets: { key: MarketKey; token: string; data: AssetAnalyticsPayload }[];
  readonly markets: { key: MarketKey; data: MarketAnalyticsPayload }[];
  readonly scores: { key: MarketKey; data: LendingScoreEntry[] }[];
  readonly overviews: { protocol: string; data: MarketOverviewPayload }[];
  readonly overviewScores: { protocol: string; data: LendingScoreEntry[] }[];
  readonly all: AllMarketsScoreEntry[];
}

/** Recent liquidations listed in full in the market analytics. */
const RECENT_LIQUIDATIONS = 20;
const USD_DECIMALS = 2;

const keyOf = (s: LendingMarketTarget): MarketKey => ({
  chain: s.chain,
  protocol: s.protocol,
  version: s.version,
  baseAsset: s.baseAsset,
});

const usd = (x: number) => roundTo(x, USD_DECIMALS);

function assetAnalytics(
  source: LendingMarketTarget,
  snapshot: MarketSnapshot,
  r: ReserveSnapshot,
): AssetAnalyticsPayload {
  const supply = toUnits(BigInt(r.totalSupplyRaw), r.decimals);
  const borrow = toUnits(BigInt(r.totalBorrowRaw), r.decimals);
  const suppliers = new Set<string>();
  const borrowers = new Set<string>();
  for (const p of snapshot.positions) {
    if (BigInt(p.supplied[r.asset] ?? '0') > 0n) suppliers.add(p.account);
    if (BigInt(p.borrowed[r.asset] ?? '0') > 0n) borrowers.add(p.account);
  }
  return {
    chain: source.chain,
    protocol: source.protocol,
    version: source.version,
    base_asset_symbol: source.baseAsset,
    token_address: r.asset,
    symbol: r.symbol,
    decimals: r.decimals,
    total_supply_token: supply,
    total_supply_usd: r.priceUsd === null ? null : usd(supply * r.priceUsd),
    total_borrow_token: borrow,
    total_borrow_usd: r.priceUsd === null ? null : usd(borrow * r.priceUsd),
    total_supply_raw: r.totalSupplyRaw,
    total_borrow_raw: r.totalBorrowRaw,
    num_unique_wallets_supply: suppliers.size,
    num_unique_wallets_borrow: borrowers.size,
    utilisation: r.borrowingEnabled && supply > 0 ? roundTo(borrow / supply, 6) : null,
    supply_rate: r.supplyRate,
    borrow_rate: r.borrowRate,
    collateral_factor: r.ltv,
    liquidation_threshold: r.liquidationThreshold,
    liquidation_bonus: r.liquidationBonus === null ? null : roundTo(r.liquidationBonus, 6),
    reserve_factor: r.reserveFactor,
    supply_cap_token: r.supplyCap,
    borrow_cap_token: r.borrowCap,
    borrowing_enabled: r.borrowingEnabled,
    collateral_enabled: r.collateralEnabled,
    oracle_price_usd: r.priceUsd,
    block_number: snapshot.blockNumber,
    timestamp: isoSeconds(snapshot.timestamp),
  };
}

function liquidationSummary(m: MarketInput, snapshot: MarketSnapshot, asOf: number): LiquidationSummary {
  const decimalsOf = (token: string) =>
    snapshot.reserves.find((r) => r.asset === token)?.decimals ??
    m.source.assets.find((a) => a.address === token)?.decimals ??
    18;
  const days = dailyHistoryInstants(asOf).map((t) => utcDate(t));
  const byDay = new Map<string, LiquidationDayEntry>(
    days.map((date) => [date, { date, count: 0, debt_repaid_usd: 0, collateral_seized_usd: 0 }]),
  );
  const rows = m.liquidations.map((l) => {
    const debt = toUnits(l.amount, decimalsOf(l.asset));
    const collateral = toUnits(l.collateralAmount, decimalsOf(l.collateralAsset));
    const debtPrice = m.priceAt(l.asset, l.timestamp);
    const collateralPrice = m.priceAt(l.collateralAsset, l.timestamp);
    return {
      l,
      debt,
      collateral,
      debtUsd: debtPrice === null ? null : debt * debtPrice,
      collateralUsd: collateralPrice === null ? null : collateral * collateralPrice,
    };
  });
  for (const r of rows) {
    const day = byDay.get(utcDate(r.l.timestamp));
    if (!day) continue;
    day.count += 1;
    day.debt_repaid_usd = usd(day.debt_repaid_usd + (r.debtUsd ?? 0));
    day.collateral_seized_usd = usd(day.collateral_seized_usd + (r.collateralUsd ?? 0));
  }
  return {
    window_days: 7,
    count: rows.length,
    debt_repaid_usd: usd(rows.reduce((s, r) => s + (r.debtUsd ?? 0), 0)),
    collateral_seized_usd: usd(rows.reduce((s, r) => s + (r.collateralUsd ?? 0), 0)),
    by_day: days.map((d) => byDay.get(d)!),
    recent: rows
      .slice(-RECENT_LIQUIDATIONS)
      .reverse()
      .map((r) => ({
        tx_hash: r.l.txHash,
        block_number: r.l.blockNumber,
        timestamp: isoSeconds(r.l.timestamp),
        borrower: r.l.account,
        liquidator: r.l.actor,
        debt_asset: r.l.asset,
        debt_repaid_token: r.debt,
        debt_repaid_usd: r.debtUsd === null ? null : usd(r.debtUsd),
        collateral_asset: r.l.collateralAsset,
        collateral_seized_token: r.collateral,
        collateral_seized_usd: r.collateralUsd === null ? null : usd(r.collateralUsd),
      })),
  };
}

function scoreHistory(m: MarketInput, asOf: number): LendingScoreEntry[] {
  const instants = dailyHistoryInstants(asOf);
  return instants.map((t, d) => {
    const snapshot = d === 0 ? m.latest : m.daily[d - 1];
    if (!snapshot) return gapScore(t, d === 0, 'no_snapshot');
    return scoreMarket(snapshot, m.source.design, m.depthUsd, t, d === 0);
  });
}

/** Debt-weighted mean of market scores (markets without a score are left out). */
function aggregateScores(
  parts: readonly { name: string; record: LendingScoreEntry; debtUsd: number }[],
  t: number,
  partial: boolean,
): LendingScoreEntry {
  const scored = parts.filter((p) => p.record.score !== null);
  if (!scored.length) return gapScore(t, partial, parts.length ? 'no_scored_markets' : 'no_markets');
  const weights = scored.map((p) => Math.max(p.debtUsd, 0));
  const total = weights.reduce((s, w) => s + w, 0);
  const w = total > 0 ? weights.map((x) => x / total) : scored.map(() => 1 / scored.length);
  const score = roundTo(
    scored.reduce((s, p, i) => s + p.record.score! * w[i]!, 0),
    4,
  );
  return {
    score,
    grade: gradeOf(score),
    components: scored.map((p, i) => ({
      name: p.name,
      value: p.record.score,
      weight: w[i]!,
      inputs: { debt_usd: p.debtUsd },
    })),
    methodology: LENDING_METHODOLOGY,
    timestamp: isoSeconds(t),
    aggregation: 'weighted-mean',
    evidence: roundTo(
      parts.reduce((s, p) => s + Math.max(p.debtUsd, 0), 0) > 0
        ? total / parts.reduce((s, p) => s + Math.max(p.debtUsd, 0), 0)
        : scored.length / parts.length,
      4,
    ),
    date: utcDate(t),
    partial,
    gap_reason: null,
  };
}

export function computeLending(input: LendingInput): LendingOutput {
  const asOf = input.asOf;
  const out: LendingOutput = {
    available: [],
    assets: [],
    markets: [],
    scores: [],
    overviews: [],
    overviewScores: [],
    all: [],
  };
  const byProtocol = new Map<
    string,
    { m: MarketInput; analytics?: MarketAnalyticsPayload; history: LendingScoreEntry[] }[]
  >();
  for (const m of input.markets) {
    const s = m.source;
    const key = keyOf(s);
    const base = s.assets.find((a) => a.symbol.toUpperCase() === s.baseAsset.toUpperCase());
    const assetsFromSnapshot = m.latest?.reserves.map((r) => ({
      token_address: r.asset,
      symbol: r.symbol,
      decimals: r.decimals,
    }));
    const assets =
      assetsFromSnapshot ?? s.assets.map((a) => ({ token_address: a.address, symbol: a.symbol, decimals: a.decimals }));
    out.available.push({
      chain: s.chain,
      protocol: s.protocol,
      version: s.version,
      base_asset: s.baseAsset,
      market_name: s.marketName,
      design: s.design,
      pool_address: s.pool,
      base_asset_token: base ? { token_address: base.address, symbol: base.symbol, decimals: base.decimals } : null,
      assets,
      number_of_assets: assets.length,
    });
    const history = scoreHistory(m, asOf);
    out.scores.push({ key, data: history });
    const entry: { m: MarketInput; analytics?: MarketAnalyticsPayload; history: LendingScoreEntry[] } = { m, history };
    if (m.latest) {
      const snapshot = m.latest;
      const assetRows = snapshot.reserves.map((r) => assetAnalytics(s, snapshot, r));
      for (const a of assetRows) out.assets.push({ key, token: a.token_address, data: a });
      const supplyUsd = assetRows.reduce((t, a) => t + (a.total_supply_usd ?? 0), 0);
      // Morpho's collateral is not lent out: utilisation compares borrows with the lendable (loan token) supply.
      const lendable = assetRows.filter((a) => a.borrowing_enabled);
      const lendableUsd = lendable.reduce((t, a) => t + (a.total_supply_usd ?? 0), 0);
      const borrowUsd = assetRows.reduce((t, a) => t + (a.total_borrow_usd ?? 0), 0);
      const suppliers = new Set(
        snapshot.positions.filter((p) => Object.values(p.supplied).some((x) => BigInt(x) > 0n)).map((p) => p.account),
      );
      const borrowers = new Set(
        snapshot.positions.filter((p) => Object.values(p.borrowed).some((x) => BigInt(x) > 0n)).map((p) => p.account),
      );
      const analytics: MarketAnalyticsPayload = {
        chain: s.chain,
        protocol: s.protocol,
        version: s.version,
        base_asset: s.baseAsset,
        market_name: s.marketName,
        pool_address: s.pool,
        block_number: snapshot.blockNumber,
        timestamp: isoSeconds(snapshot.timestamp),
        total_supply_usd: usd(supplyUsd),
        total_borrow_usd: usd(borrowUsd),
        utilisation: lendableUsd > 0 ? roundTo(borrowUsd / lendableUsd, 6) : null,
        num_unique_wallets_supply: suppliers.size,
        num_unique_wallets_borrow: borrowers.size,
        assets: assetRows,
        health_factor_distribution: healthDistribution(snapshot.positions).map((b) => ({
          ...b,
          debt_usd: usd(b.debt_usd),
        })),
        liquidations: liquidationSummary(m, snapshot, asOf),
      };
      entry.analytics = analytics;
      out.markets.push({ key, data: analytics });
    }
    out.all.push({ chain: s.chain, protocol: s.protocol, version: s.version, base_asset: s.baseAsset, ...history[0]! });
    const list = byProtocol.get(s.protocol) ?? [];
    list.push(entry);
    byProtocol.set(s.protocol, list);
  }

  for (const [protocol, entries] of byProtocol) {
    const markets = entries
      .filter((e) => e.analytics)
      .map((e) => {
        const a = e.analytics!;
        return {
          chain: a.chain,
          version: a.version,
          base_asset: a.base_asset,
          market_name: a.market_name,
          pool_address: a.pool_address,
          total_supply_usd: a.total_supply_usd,
          total_borrow_usd: a.total_borrow_usd,
          utilisation: a.utilisation,
          borrowers: a.num_unique_wallets_borrow,
          liquidations_7d: a.liquidations.count,
          score: e.history[0]!.score,
          grade: e.history[0]!.grade,
          timestamp: a.timestamp,
        };
      });
    const supply = markets.reduce((s, x) => s + x.total_supply_usd, 0);
    const borrow = markets.reduce((s, x) => s + x.total_borrow_usd, 0);
    out.overviews.push({
      protocol,
      data: {
        protocol,
        markets,
        total_supply_usd: usd(supply),
        total_borrow_usd: usd(borrow),
        utilisation: supply > 0 ? roundTo(borrow / supply, 6) : null,
      },
    });
    const instants = dailyHistoryInstants(asOf);
    out.overviewScores.push({
      protocol,
      data: instants.map((t, d) =>
        aggregateScores(
          entries.map((e) => {
            const snapshot = d === 0 ? e.m.latest : e.m.daily[d - 1];
            const debtUsd = snapshot ? snapshot.positions.reduce((s, p) => s + p.debtUsd, 0) : 0;
            const { chain, version, baseAsset } = e.m.source;
            return { name: `${chain}/${version}/${baseAsset}`, record: e.history[d]!, debtUsd };
          }),
          t,
          d === 0,
        ),
      ),
    });
  }
  return out;
}
