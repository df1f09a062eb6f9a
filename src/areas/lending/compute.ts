/**
 * Pure compute of the lending area: market snapshots, liquidation events, DEX prices and depth in (loaded by
 * `LendingRepository.computeInput`); the payloads of the 7 lending paths out, in the shapes of schema.ts. Nothing
 * here reads a store or a chain.
 */
import type { GapReason } from '../../core/gaps.js';
import {
  besidePolicy,
  type FeedAnswer,
  type OracleCandidate,
  type PolicyPrice,
  roundPriceUsd,
  roundUsd,
} from '../../core/price-policy.js';
import { type ComponentInput, combineScore, roundShares, roundTo, scoreGapReason } from '../../core/score.js';
import { dailyHistoryInstants, isoSeconds, utcDate } from '../../core/time.js';
import type { LendingEventFact, MarketSnapshot, ReserveSnapshot } from './facts.js';
import { liquidationSummary } from './liquidations.js';
import {
  type ChainDexFacts,
  depthUsdIn,
  feedCandidate,
  poolStatesAt,
  priceAtInstant,
  snapshotPrices,
} from './prices.js';
import type {
  AllMarketsScoreEntry,
  AssetAnalyticsPayload,
  AvailableMarketEntry,
  LendingScoreEntry,
  MarketAnalyticsPayload,
  MarketOverviewPayload,
} from './schema.js';
import {
  accountTotals,
  type DepthUsd,
  gapScore,
  healthDistribution,
  LENDING_METHODOLOGY,
  type PriceOf,
  type ScoreIdentity,
  scoreMarket,
  stressTest,
  unpricedBorrowers,
  valuePositions,
} from './score.js';
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
}

export interface LendingInput {
  /** Unix seconds: the oldest of the markets' newest snapshots (every window ends here). */
  readonly asOf: number;
  readonly markets: readonly MarketInput[];
  /** Per chain, the DEX area's facts up to `asOf` (pools, states, hourly prices): depth and prices per instant. */
  readonly dex?: Readonly<Record<string, ChainDexFacts>>;
  /**
   * Per chain, the oracle area's USD feed answers over the window and the newest before it (oracles `feedAnswers`):
   * the policy's feed candidate at each liquidation's block time.
   */
  readonly feeds?: Readonly<Record<string, readonly FeedAnswer[]>>;
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

const keyOf = (s: LendingMarketTarget): MarketKey => ({
  chain: s.chain,
  protocol: s.protocol,
  version: s.version,
  baseAsset: s.baseAsset,
});

/** One USD precision with liquid staking (core/price-policy `roundUsd`): never 0 beside a non-zero amount. */
const usd = roundUsd;

/** The published price of a figure: the policy price, its source and confidence (API.md: one price policy). */
function priceFields(price: PolicyPrice | null) {
  return {
    price_usd: price?.price_usd ?? null,
    price_source: price?.source ?? null,
    price_source_ref: price?.source_ref ?? null,
    price_confidence: price?.confidence ?? null,
    price_flagged: price?.flagged ?? false,
    price_disagreement: price?.disagreement ?? null,
    alternative_price_usd: price?.alternative_price_usd == null ? null : roundPriceUsd(price.alternative_price_usd),
  };
}

function assetAnalytics(
  source: LendingMarketTarget,
  snapshot: MarketSnapshot,
  r: ReserveSnapshot,
  priceOf: PriceOf,
  feedOf: (token: string) => OracleCandidate | null,
): AssetAnalyticsPayload {
  const price = priceOf(r.asset);
  // The feed answer the policy took for the token (Aave: AaveOracle at the block; Morpho: the chain's Aave-design
  // markets' feed), never the DEX price a Morpho snapshot stores.
  const feed = feedOf(r.asset);
  const supply = toUnits(BigInt(r.totalSupplyRaw), r.decimals);
  const borrow = toUnits(BigInt(r.totalBorrowRaw), r.decimals);
  const suppliers = new Set<string>();
  const borrowers = new Set<string>();
  for (const p of snapshot.positions) {
    if (BigInt(p.supplied[r.asset] ?? '0') > 0n) suppliers.add(p.account);
    if (BigInt(p.borrowed[r.asset] ?? '0') > 0n) borrowers.add(p.account);
  }
  const morpho = snapshot.morphoMarkets?.find((m) => m.collateralToken === r.asset);
  const gaps: Record<string, string> = {};
  if (!price) {
    gaps.total_supply_usd = 'no_price';
    gaps.total_borrow_usd = 'no_price';
    gaps.price_usd = 'no_price';
  }
  if (!feed) {
    gaps.oracle_price_usd = 'no_data';
    gaps.oracle_source_ref = 'no_data';
  }
  const loan = morpho ? priceOf(morpho.loanToken) : null;
  const ownUsd = morpho?.oraclePrice != null && loan ? morpho.oraclePrice * loan.price_usd : null;
  const beside = besidePolicy(ownUsd, price?.price_usd ?? null);
  if (morpho && morpho.oraclePrice === null) gaps.market_oracle_price = 'source_error';
  if (morpho && beside.disagreement === null) gaps.market_oracle_disagreement = 'no_price';
  const cap = (cap: number | null, used: number) => (cap === null || cap === 0 ? null : roundTo(used / cap, 6));
  const payload: AssetAnalyticsPayload = {
    chain: source.chain,
    protocol: source.protocol,
    version: source.version,
    base_asset_symbol: source.baseAsset,
    token_address: r.asset,
    symbol: r.symbol,
    decimals: r.decimals,
    total_supply_token: supply,
    total_supply_usd: price === null ? null : usd(supply * price.price_usd),
    total_borrow_token: borrow,
    total_borrow_usd: price === null ? null : usd(borrow * price.price_usd),
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
    supply_cap_used: cap(r.supplyCap, supply),
    borrow_cap_used: cap(r.borrowCap, borrow),
    borrowing_enabled: r.borrowingEnabled,
    collateral_enabled: r.collateralEnabled,
    oracle_price_usd: feed ? roundPriceUsd(feed.priceUsd) : null,
    oracle_source_ref: feed?.ref ?? null,
    // Morpho collateral: its market's oracle as it answers (collateral in loan token), and its gap to the policy
    // price (the oracle × the loan token's policy price against the collateral's policy price).
    market_oracle_price:
      morpho?.oraclePrice === null || morpho === undefined ? null : Number(morpho.oraclePrice.toPrecision(12)),
    market_oracle_address: morpho?.oracle ?? null,
    market_oracle_disagreement: beside.disagreement,
    market_oracle_flagged: beside.flagged,
    ...priceFields(price),
    position_classes: positionClasses(snapshot, r),
    rate_model: rateModelOf(r),
    isolation: isolationOf(r),
    gap_reasons: gaps,
    block_number: snapshot.blockNumber,
    timestamp: isoSeconds(snapshot.timestamp),
  };
  // Parameters a snapshot taken before they were read does not hold are unknown, not absent from the design.
  if (r.rateModel === undefined && payload.rate_model === null) gaps.rate_model = 'no_data';
  if (r.isolation === undefined && payload.isolation === null) gaps.isolation = 'no_data';
  // Every other null figure is one the asset's design does not have (no cap, not borrowable, a Morpho loan token's
  // collateral parameters, a market oracle of an Aave reserve): said, not silent.
  for (const [field, value] of Object.entries(payload))
    if (value === null && !gaps[field]) gaps[field] = 'not_applicable';
  return payload;
}

/** The asset's interest rate curve as its contracts define it (null: not borrowable here, e.g. Morpho collateral). */
function rateModelOf(r: ReserveSnapshot) {
  const m = r.rateModel;
  if (!m) return null;
  return {
    kind: m.kind,
    optimal_utilisation: m.optimalUtilisation,
    base_rate: m.baseRate,
    slope1: m.slope1,
    slope2: m.slope2,
    curve_steepness: m.curveSteepness,
    // The borrow rate the curve gives at the kink and at full use (Aave), for a reader who checks the curve.
    rate_at_optimal: m.baseRate === null || m.slope1 === null ? null : roundTo(m.baseRate + m.slope1, 9),
    rate_at_full_use:
      m.baseRate === null || m.slope1 === null || m.slope2 === null
        ? null
        : roundTo(m.baseRate + m.slope1 + m.slope2, 9),
    gap_reasons: (m.kind === 'morpho-adaptive-curve'
      ? {
          base_rate: 'not_applicable',
          slope1: 'not_applicable',
          slope2: 'not_applicable',
          rate_at_optimal: 'not_applicable',
          rate_at_full_use: 'not_applicable',
        }
      : { curve_steepness: 'not_applicable' }) as Record<string, string>,
  };
}

/** Aave V3 isolation mode: the debt ceiling of an isolated collateral and its use (null: the design has none). */
function isolationOf(r: ReserveSnapshot) {
  const x = r.isolation;
  if (!x) return null;
  return {
    isolated_collateral: x.debtCeilingUsd > 0,
    debt_ceiling_usd: x.debtCeilingUsd,
    isolated_debt_usd: x.isolatedDebtUsd,
    debt_ceiling_used: x.debtCeilingUsd > 0 ? roundTo(x.isolatedDebtUsd / x.debtCeilingUsd, 6) : null,
    borrowable_in_isolation: x.borrowableInIsolation,
    siloed_borrowing: x.siloedBorrowing,
    gap_reasons: (x.debtCeilingUsd > 0 ? {} : { debt_ceiling_used: 'not_applicable' }) as Record<string, string>,
  };
}

/**
 * The parameters each class of position borrows under against this asset: `normal` (the reserve's configuration;
 * Morpho: each isolated market's LLTV) and every E-mode category the asset belongs to. The health distribution and
 * the stress test apply exactly these (a position in an E-mode category uses the category's).
 */
function positionClasses(snapshot: MarketSnapshot, r: ReserveSnapshot) {
  if (snapshot.morphoMarkets) {
    return snapshot.morphoMarkets
      .filter((m) => m.collateralToken === r.asset)
      .map((m) => ({
        class: `morpho_market:${m.id}`,
        ltv: m.lltv,
        liquidation_threshold: m.lltv,
        liquidation_bonus: r.liquidationBonus === null ? null : roundTo(r.liquidationBonus, 6),
        positions: snapshot.positions.filter((p) => p.marketId === m.id && p.collateral.includes(r.asset)).length,
      }));
  }
  if (!r.collateralEnabled) return [];
  return [
    {
      class: 'normal',
      ltv: r.ltv,
      liquidation_threshold: r.liquidationThreshold,
      liquidation_bonus: r.liquidationBonus === null ? null : roundTo(r.liquidationBonus, 6),
      positions: snapshot.positions.filter(
        (p) =>
          p.collateral.includes(r.asset) &&
          !(snapshot.eModeCategories ?? []).some((c) => c.id === p.eMode && c.assets.includes(r.asset)),
      ).length,
    },
    ...(snapshot.eModeCategories ?? [])
      .filter((c) => c.assets.includes(r.asset))
      .map((c) => ({
        class: `emode:${c.id}${c.label ? `:${c.label}` : ''}`,
        ltv: c.ltv,
        liquidation_threshold: c.liquidationThreshold,
        liquidation_bonus: roundTo(c.liquidationBonus, 6),
        positions: snapshot.positions.filter((p) => p.eMode === c.id && p.collateral.includes(r.asset)).length,
      })),
  ];
}

/** The price drops of the liquidations-at-risk table (issue 13: −5 … −50 %). */
export const PRICE_DROPS = [0.05, 0.1, 0.2, 0.35, 0.5] as const;
/** Accounts listed in the top suppliers and borrowers. */
const TOP_ACCOUNTS = 10;

/**
 * Per collateral asset, what each price drop of that asset alone liquidates: the stress test's rules (each
 * position's own thresholds, close factor, seizure capped by the collateral) at every drop of `PRICE_DROPS`.
 */
function priceDropScenarios(snapshot: MarketSnapshot, design: LendingMarketTarget['design'], priceOf: PriceOf) {
  const byAsset = new Map<string, { drop: number; row: ReturnType<typeof stressTest>[number] }[]>();
  for (const drop of PRICE_DROPS) {
    for (const row of stressTest(snapshot, design, () => null, priceOf, drop)) {
      const list = byAsset.get(row.asset) ?? [];
      list.push({ drop, row });
      byAsset.set(row.asset, list);
    }
  }
  return [...byAsset.entries()].map(([asset, rows]) => ({
    asset,
    symbol: rows[0]!.row.symbol,
    price_usd: rows[0]!.row.price_usd,
    price_source: rows[0]!.row.price_source,
    drops: rows.map(({ drop, row }) => ({
      price_drop: drop,
      positions_liquidated: row.positions_liquidated,
      debt_repaid_usd: row.debt_repaid_usd === null ? null : usd(row.debt_repaid_usd),
      collateral_to_sell_usd: row.collateral_to_sell_usd === null ? null : usd(row.collateral_to_sell_usd),
      shortfall_usd: row.shortfall_usd === null ? null : usd(row.shortfall_usd),
      positions_with_shortfall: row.positions_with_shortfall,
      gap_reason: row.gap_reason,
    })),
  }));
}

/** The largest accounts of one side with their share of the side's USD total (null: a balance is unpriced). */
function topAccounts(amounts: ReadonlyMap<string, number>, unpriced: boolean) {
  if (unpriced) return null;
  const total = [...amounts.values()].reduce((a, b) => a + b, 0);
  return [...amounts.entries()]
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP_ACCOUNTS)
    .map(([account, v]) => ({ account, usd: usd(v), share: total > 0 ? roundTo(v / total, 4) : null }));
}

/** Morpho: each isolated market of the view (id, collateral, LLTV, oracle, IRM, totals, utilisation, rates). */
function morphoMarketRows(snapshot: MarketSnapshot, priceOf: PriceOf) {
  const decimalsOf = (token: string) => snapshot.reserves.find((r) => r.asset === token)?.decimals ?? 18;
  return (snapshot.morphoMarkets ?? []).map((m) => {
    const loan = decimalsOf(m.loanToken);
    const supply = toUnits(BigInt(m.totalSupplyRaw), loan);
    const borrow = toUnits(BigInt(m.totalBorrowRaw), loan);
    const collateral = toUnits(BigInt(m.totalCollateralRaw), decimalsOf(m.collateralToken));
    const loanPrice = priceOf(m.loanToken);
    const collateralPrice = priceOf(m.collateralToken);
    return {
      market_id: m.id,
      loan_token: m.loanToken,
      collateral_token: m.collateralToken,
      lltv: m.lltv,
      oracle: m.oracle ?? null,
      irm: m.irm ?? null,
      fee: m.fee ?? null,
      oracle_price: m.oraclePrice === null ? null : Number(m.oraclePrice.toPrecision(12)),
      total_supply_token: supply,
      total_borrow_token: borrow,
      total_collateral_token: collateral,
      total_supply_usd: loanPrice ? usd(supply * loanPrice.price_usd) : null,
      total_borrow_usd: loanPrice ? usd(borrow * loanPrice.price_usd) : null,
      total_collateral_usd: collateralPrice ? usd(collateral * collateralPrice.price_usd) : null,
      utilisation: supply > 0 ? roundTo(borrow / supply, 6) : null,
      supply_rate: m.supplyRate === null ? null : Math.floor(m.supplyRate * 1e9) / 1e9,
      borrow_rate: m.borrowRate === null ? null : Math.ceil(m.borrowRate * 1e9) / 1e9,
      borrowers: snapshot.positions.filter(
        (p) => p.marketId === m.id && Object.values(p.borrowed).some((x) => BigInt(x) > 0n),
      ).length,
    };
  });
}

/** What a market's figures at one snapshot are valued with: the policy prices and DEX depth known at its instant. */
interface Valuation {
  readonly priceOf: PriceOf;
  readonly prices: ReadonlyMap<string, PolicyPrice | null>;
  readonly depthUsd: DepthUsd;
  /** The feed answer the policy takes for a token at the snapshot (null: no feed prices it). */
  readonly feedOf: (token: string) => OracleCandidate | null;
}

function valuation(
  snapshot: MarketSnapshot,
  peers: readonly (MarketSnapshot | undefined)[],
  dex: ChainDexFacts | undefined,
): Valuation {
  const prices = snapshotPrices(snapshot, peers, dex);
  const states = poolStatesAt(dex, snapshot.timestamp);
  return {
    prices,
    priceOf: (asset) => prices.get(asset) ?? null,
    depthUsd: (asset, impact, price) => depthUsdIn(states, asset, impact, price),
    feedOf: (token) => feedCandidate(snapshot, peers, token),
  };
}

const identityOf = (s: LendingMarketTarget): ScoreIdentity => ({
  chain: s.chain,
  protocol: s.protocol,
  version: s.version,
  base_asset: s.baseAsset,
});

/** The snapshot standing for history day `d` (0: the newest). */
const snapshotOf = (m: MarketInput, d: number) => (d === 0 ? m.latest : m.daily[d - 1]);

/** USD debt of a snapshot's positions at its policy prices (null when a borrower's debt has no price). */
function debtUsdOf(snapshot: MarketSnapshot, design: LendingMarketTarget['design'], v: Valuation): number | null {
  const valued = valuePositions(snapshot, design, v.priceOf);
  if (valued.some((p) => p.debtUsd === null)) return null;
  return valued.reduce((s, p) => s + (p.debtUsd ?? 0), 0);
}

/** A market's component in its protocol's score: its own score, weighted by its debt. */
interface MarketPart {
  readonly name: string;
  readonly record: LendingScoreEntry;
  /** Null: the market's debt has no price (its weight is then unknown). */
  readonly debtUsd: number | null;
}

/**
 * The protocol's score over its markets (core/score `combineScore`, weighted mean): each market's score weighted by
 * its share of the protocol's debt (USD), weights rounded to 4 decimals summing to 1, evidence the share of the
 * markets' weight with a score. A market with no debt weighs nothing and is listed in the inputs; a market whose
 * debt is unpriced weighs the mean of the others (its size unknown) with a null value, lowering the evidence.
 * Below `MIN_EVIDENCE` the protocol has no score (`insufficient_evidence`).
 */
export function aggregateScores(
  parts: readonly MarketPart[],
  t: number,
  partial: boolean,
  protocol: string,
): LendingScoreEntry {
  if (!parts.length) return gapScore(t, partial, 'no_members', { protocol });
  const known = parts.filter((p) => p.debtUsd !== null && p.debtUsd > 0).map((p) => p.debtUsd!);
  const meanKnown = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 1;
  const weighed = parts.flatMap((p): ComponentInput[] => {
    const weight = p.debtUsd === null ? meanKnown : p.debtUsd > 0 ? p.debtUsd : known.length ? 0 : 1;
    if (!(weight > 0)) return [];
    return [
      {
        name: p.name,
        value: p.record.score,
        weight,
        ...(p.record.score === null ? { gapReason: (p.record.gap_reason ?? 'no_data') as GapReason } : {}),
        inputs: {
          debt_usd: p.debtUsd === null ? null : roundTo(p.debtUsd, 2),
          gap_reason:
            p.record.score === null ? (p.record.gap_reason ?? 'no_data') : p.debtUsd === null ? 'no_price' : null,
        },
      },
    ];
  });
  // Nominal weights as shares rounded to 4 decimals (no float noise in what the evidence is computed from).
  const total = weighed.reduce((s, c) => s + c.weight, 0);
  const shares = roundShares(
    weighed.map((c) => c.weight / total),
    6,
  );
  const components = weighed.map((c, i) => ({ ...c, weight: shares[i]! })).filter((c) => c.weight > 0);
  const record = combineScore(components, { methodology: LENDING_METHODOLOGY, at: t, aggregation: 'weighted-mean' });
  const withoutDebt = parts.filter((p) => p.debtUsd !== null && !(p.debtUsd > 0)).map((p) => p.name);
  return {
    protocol,
    ...record,
    components: record.components.map((c) =>
      c === record.components[0] && withoutDebt.length
        ? { ...c, inputs: { ...c.inputs, markets_without_debt: withoutDebt } }
        : c,
    ),
    date: utcDate(t),
    partial,
    gap_reason: scoreGapReason(record, 'insufficient_evidence'),
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
  const instants = dailyHistoryInstants(asOf);
  // Per market and history day, its valuation: peers are the same chain's other markets on the same day.
  const valuations = new Map<MarketInput, (Valuation | undefined)[]>();
  for (const m of input.markets) {
    valuations.set(
      m,
      instants.map((_, d) => {
        const snapshot = snapshotOf(m, d);
        if (!snapshot) return undefined;
        const peers = input.markets
          .filter((x) => x !== m && x.source.chain === m.source.chain)
          .map((x) => snapshotOf(x, d));
        return valuation(snapshot, peers, input.dex?.[m.source.chain]);
      }),
    );
  }
  const byProtocol = new Map<
    string,
    { m: MarketInput; analytics?: MarketAnalyticsPayload; history: LendingScoreEntry[] }[]
  >();
  for (const m of input.markets) {
    const s = m.source;
    const key = keyOf(s);
    const identity = identityOf(s);
    const base = s.assets.find((a) => a.symbol.toUpperCase() === s.baseAsset.toUpperCase());
    const assetsFromSnapshot = m.latest?.reserves.map((r) => ({
      token_address: r.asset,
      symbol: r.symbol,
      decimals: r.decimals,
    }));
    const assets =
      assetsFromSnapshot ?? s.assets.map((a) => ({ token_address: a.address, symbol: a.symbol, decimals: a.decimals }));
    const baseIndex = base ? assets.findIndex((a) => a.token_address === base.address) : -1;
    out.available.push({
      chain: s.chain,
      protocol: s.protocol,
      version: s.version,
      // The legacy API's object (reference/legacy-api.md), and the symbol the other lending paths take beside it.
      base_asset: base
        ? {
            token_index: Math.max(0, baseIndex),
            token_address: base.address,
            token_name: '',
            token_symbol: base.symbol,
            token_decimal: base.decimals,
          }
        : null,
      base_asset_symbol: s.baseAsset,
      market_name: s.marketName,
      design: s.design,
      pool_address: s.pool,
      base_asset_token: base ? { token_address: base.address, symbol: base.symbol, decimals: base.decimals } : null,
      assets,
      number_of_assets: assets.length,
    });
    const vals = valuations.get(m)!;
    const history = instants.map((t, d) => {
      const snapshot = snapshotOf(m, d);
      const v = vals[d];
      if (!snapshot || !v) return gapScore(t, d === 0, 'no_data', identity);
      return scoreMarket(snapshot, s.design, v.depthUsd, t, d === 0, v.priceOf, identity);
    });
    out.scores.push({ key, data: history });
    const entry: { m: MarketInput; analytics?: MarketAnalyticsPayload; history: LendingScoreEntry[] } = { m, history };
    if (m.latest && vals[0]) {
      const snapshot = m.latest;
      const v = vals[0];
      const assetRows = snapshot.reserves.map((r) => assetAnalytics(s, snapshot, r, v.priceOf, v.feedOf));
      for (const a of assetRows) out.assets.push({ key, token: a.token_address, data: a });
      const sumOf = (rows: AssetAnalyticsPayload[], f: (a: AssetAnalyticsPayload) => number | null) =>
        rows.some((a) => f(a) === null) ? null : rows.reduce((t, a) => t + f(a)!, 0);
      // Supply is lendable supply: what borrowers can take (Morpho's loan token, Aave's borrowable reserves). Deposits
      // that cannot be lent out (Morpho's collateral, reserves with borrowing disabled) are served apart, so that
      // total_borrow_usd / total_supply_usd is the market's utilisation and no single-market protocol shows two.
      const lendableUsd = sumOf(
        assetRows.filter((a) => a.borrowing_enabled),
        (a) => a.total_supply_usd,
      );
      const supplyUsd = lendableUsd;
      const collateralOnlyUsd = sumOf(
        assetRows.filter((a) => !a.borrowing_enabled),
        (a) => a.total_supply_usd,
      );
      const borrowUsd = sumOf(assetRows, (a) => a.total_borrow_usd);
      const suppliers = new Set(
        snapshot.positions.filter((p) => Object.values(p.supplied).some((x) => BigInt(x) > 0n)).map((p) => p.account),
      );
      const borrowers = new Set(
        snapshot.positions.filter((p) => Object.values(p.borrowed).some((x) => BigInt(x) > 0n)).map((p) => p.account),
      );
      const valued = valuePositions(snapshot, s.design, v.priceOf);
      const unpriced = unpricedBorrowers(snapshot, valued);
      const totals = accountTotals(snapshot, v.priceOf);
      const gaps: Record<string, string> = {};
      if (totals.unpriced) {
        gaps.top_suppliers = 'no_price';
        gaps.top_borrowers = 'no_price';
      }
      if (supplyUsd === null) gaps.total_supply_usd = 'no_price';
      if (collateralOnlyUsd === null) gaps.total_collateral_only_usd = 'no_price';
      if (borrowUsd === null) gaps.total_borrow_usd = 'no_price';
      if (lendableUsd === null || borrowUsd === null) gaps.utilisation = 'no_price';
      if (unpriced) gaps.health_factor_distribution = 'no_price';
      const analytics: MarketAnalyticsPayload = {
        chain: s.chain,
        protocol: s.protocol,
        version: s.version,
        base_asset: s.baseAsset,
        market_name: s.marketName,
        pool_address: s.pool,
        block_number: snapshot.blockNumber,
        timestamp: isoSeconds(snapshot.timestamp),
        total_supply_usd: supplyUsd === null ? null : usd(supplyUsd),
        total_collateral_only_usd: collateralOnlyUsd === null ? null : usd(collateralOnlyUsd),
        total_borrow_usd: borrowUsd === null ? null : usd(borrowUsd),
        utilisation:
          lendableUsd !== null && borrowUsd !== null && lendableUsd > 0 ? roundTo(borrowUsd / lendableUsd, 6) : null,
        num_unique_wallets_supply: suppliers.size,
        num_unique_wallets_borrow: borrowers.size,
        assets: assetRows,
        health_factor_distribution: healthDistribution(valued).map((b) => ({
          ...b,
          debt_usd: usd(b.debt_usd),
        })),
        unpriced_borrowers: unpriced,
        liquidations_at_risk: priceDropScenarios(snapshot, s.design, v.priceOf),
        top_suppliers: topAccounts(totals.supplied, totals.unpriced),
        top_borrowers: topAccounts(totals.borrowed, totals.unpriced),
        morpho_markets: morphoMarketRows(snapshot, v.priceOf),
        liquidations: liquidationSummary(m, snapshot, asOf, (token, t) =>
          priceAtInstant(input.feeds?.[s.chain] ?? [], input.dex?.[s.chain], token, t),
        ),
        gap_reasons: gaps,
      };
      entry.analytics = analytics;
      out.markets.push({ key, data: analytics });
    }
    out.all.push({ ...history[0]!, ...identity });
    const list = byProtocol.get(s.protocol) ?? [];
    list.push(entry);
    byProtocol.set(s.protocol, list);
  }
  // Healthiest first; markets without a score (no evidence) after every scored one, never ranked healthiest.
  out.all.sort((a, b) => (a.score === null ? (b.score === null ? 0 : 1) : b.score === null ? -1 : b.score - a.score));

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
          liquidations_7d: a.liquidations.count_7d,
          score: e.history[0]!.score,
          grade: e.history[0]!.grade,
          gap_reasons: a.gap_reasons,
          timestamp: a.timestamp,
        };
      });
    const total = (f: (x: (typeof markets)[number]) => number | null) =>
      markets.some((x) => f(x) === null) ? null : markets.reduce((t, x) => t + f(x)!, 0);
    const supply = total((x) => x.total_supply_usd);
    const borrow = total((x) => x.total_borrow_usd);
    const gaps: Record<string, string> = {};
    if (supply === null) gaps.total_supply_usd = 'no_price';
    if (borrow === null) gaps.total_borrow_usd = 'no_price';
    if (supply === null || borrow === null) gaps.utilisation = 'no_price';
    out.overviews.push({
      protocol,
      data: {
        protocol,
        markets,
        total_supply_usd: supply === null ? null : usd(supply),
        total_borrow_usd: borrow === null ? null : usd(borrow),
        utilisation: supply !== null && borrow !== null && supply > 0 ? roundTo(borrow / supply, 6) : null,
        gap_reasons: gaps,
      },
    });
    out.overviewScores.push({
      protocol,
      data: instants.map((t, d) =>
        aggregateScores(
          entries.map((e) => {
            const snapshot = snapshotOf(e.m, d);
            const v = valuations.get(e.m)![d];
            const { chain, version, baseAsset, design } = e.m.source;
            return {
              name: `${chain}/${version}/${baseAsset}`,
              record: e.history[d]!,
              debtUsd: snapshot && v ? debtUsdOf(snapshot, design, v) : 0,
            };
          }),
          t,
          d === 0,
          protocol,
        ),
      ),
    });
  }
  return out;
}
