/**
 * The tokenomics area's computation: one day of one token, facts in, the record of every group out
 * (docs/methodology/tokenomics.md). Pure: the windows end at `asOf`, passed in; the same input gives the same
 * output. Amounts stay bigint until the payload; a figure that cannot be computed is null with its reason.
 *
 * Windows: the 24-hour figures (transfers, active wallets, holder and Gini changes, whale movement, netflow,
 * velocity) are the transfers in (asOf − 86,400 s, asOf]: the caller passes exactly those. For a closed day asOf is
 * the day's last second and the window is the day.
 */
import { pow10, ratioToFloat, toFloat } from '../../core/decimal.js';
import type { GapReason } from '../../core/gaps.js';
import { DAY, isoSeconds } from '../../core/time.js';
import {
  allocationsOut,
  type ContractView,
  contractView,
  type DeclaredAllocation,
  PROJECT_CATEGORIES,
  type VestingReading,
} from './allocations.js';
import {
  type Balance,
  type Concentration,
  type CoreConcentration,
  concentration,
  concentrationWithout,
  holdersAndGiniChanged,
  holdersOf,
  ZERO_ADDRESS,
} from './concentration.js';
import { type ExchangeInfo, exchangeFigures, labelNamesVenue, type Ticker } from './exchanges.js';
import { balancesBefore } from './ledger.js';
import {
  correlation,
  dominance,
  type Figure,
  holderGrowth,
  known,
  nvt,
  type PricePoint,
  RETURN_WINDOW_DAYS,
  RISK_FREE_RATE,
  sharpeRatio,
  unknown,
  volatility,
  windowReturns,
} from './market.js';
import {
  type AllocationMetricsPayload,
  type BreakdownPayload,
  type ExchangeMetricsPayload,
  type GroupName,
  HOLDER_CATEGORIES,
  type HolderCategory,
  type IndicatorsPayload,
  type SupplyMetricsPayload,
  type TokenLabelEntry,
  type TokenomicsMetricsPayload,
  type TokenomicsRecordPayload,
} from './schema.js';
import {
  burnRateMonthly,
  type CirculatingOnchain,
  circulatingOnchain,
  divergence,
  inflationMonthly,
} from './supply.js';
import { unlockedBetween, vested } from './vesting.js';

export type { DeclaredAllocation, VestingReading } from './allocations.js';
export type { ExchangeInfo, Ticker } from './exchanges.js';

export interface TokenomicsToken {
  /** Lowercase 0x address. */
  readonly address: string;
  readonly chain: string;
  readonly coingeckoId: string | null;
  readonly decimals: number;
}

export interface TransferFact {
  readonly from: string;
  readonly to: string;
  /** Raw units. */
  readonly value: bigint;
  readonly block: number;
  /** Unix seconds. */
  readonly time: number;
}

/** What the market-data source said for the token at the record's instant (CoinGecko `/coins/{id}`, charts, global). */
export interface MarketReading {
  readonly priceUsd: number;
  readonly marketCapUsd: number | null;
  readonly circulatingSupply: number | null;
  /** Null: the token has no max supply. */
  readonly maxSupply: number | null;
  /** `/global` total market cap in USD. */
  readonly globalMarketCapUsd: number | null;
  /** `market_chart` prices of the token, ETH and BTC ([ms, price]), covering the return window. */
  readonly chart: readonly PricePoint[];
  readonly ethChart: readonly PricePoint[] | null;
  readonly btcChart: readonly PricePoint[] | null;
}

export interface TokenomicsInput {
  readonly token: TokenomicsToken;
  /** The day's end block (the running day: the newest block). A day without one is `tokenomicsGapRecord`. */
  readonly blockNumber: number;
  /** Unix seconds: the instant the record holds at. */
  readonly asOf: number;
  /** `YYYY-MM-DD`. */
  readonly day: string;
  readonly partial: boolean;
  readonly dustThresholdRaw: bigint;
  /** `totalSupply()` at blockNumber. */
  readonly totalSupplyRaw: bigint;
  /** Balances at blockNumber (the replay's, or balanceOf snapshots where the replay disagrees). */
  readonly balances: readonly Balance[];
  /** Σ of the replayed balances, the zero address left out (reconciled with totalSupplyRaw). */
  readonly replayTotalRaw: bigint;
  /** Transfers in (asOf − 24 h, asOf]. */
  readonly transfers24h: readonly TransferFact[];
  readonly labels: readonly TokenLabelEntry[];
  /** Burn addresses other than the zero address (0x…dead); their balances are deducted and labelled. */
  readonly burnAddresses: readonly string[];
  readonly vesting: readonly VestingReading[];
  readonly allocations: readonly DeclaredAllocation[];
  /**
   * Total supply at the day-end 30 days before the record's day (snapshots.ts `supply30d`) and what was burned since
   * (the burn addresses' increase plus the decrease of the total supply); null when unknown, with its reason.
   */
  readonly supply30d: { readonly totalSupplyRaw: bigint; readonly burnedRaw: bigint } | null;
  readonly supply30dGapReason?: GapReason;
  readonly market: MarketReading | null;
  readonly marketGapReason?: GapReason;
  readonly tickers: readonly Ticker[] | null;
  readonly tickersGapReason?: GapReason;
  readonly exchanges: readonly ExchangeInfo[];
  /** DEX volume of the token recounted from the chain's swaps of the tracked pools, 24 h (USD; dex-volume.ts). */
  readonly dexVolumeOnchainUsd: number | null;
  /** Why `dexVolumeOnchainUsd` is null (default `no_data`). */
  readonly dexVolumeGapReason?: GapReason;
}

const reasons = (figures: Record<string, Figure | { value: unknown; reason: GapReason | null }>) => {
  const out: Record<string, string> = {};
  for (const [k, f] of Object.entries(figures)) if (f.value === null && f.reason) out[k] = f.reason;
  return out;
};

/** The labels the record uses: the registry's, then the vesting contracts and burn addresses it does not label. */
export function labelsUsed(input: TokenomicsInput): TokenLabelEntry[] {
  const byAddress = new Map<string, TokenLabelEntry>();
  for (const l of input.labels) if (!byAddress.has(l.address)) byAddress.set(l.address, { ...l });
  for (const v of input.vesting)
    if (!byAddress.has(v.address))
      byAddress.set(v.address, {
        address: v.address,
        category: 'contracts',
        label: v.label,
        source: 'vesting_contract',
      });
  for (const a of input.burnAddresses)
    if (!byAddress.has(a))
      byAddress.set(a, { address: a, category: 'other', label: 'burn address', source: 'burn_addresses' });
  return [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

interface Context {
  readonly input: TokenomicsInput;
  readonly tokens: (raw: bigint) => number;
  readonly balanceOf: Map<string, bigint>;
  readonly labels: TokenLabelEntry[];
  readonly excluded: Set<string>;
  readonly raw: Concentration;
  readonly ex: CoreConcentration;
  readonly before: { readonly holders: number; readonly gini: number | null };
  readonly views: ContractView[];
  readonly circ: CirculatingOnchain;
  readonly circulatingRaw: bigint;
  readonly transferVolumeRaw: bigint;
  readonly price: Figure;
}

function context(input: TokenomicsInput): Context {
  const d = input.token.decimals;
  const tokens = (raw: bigint) => toFloat(raw, d);
  const labels = labelsUsed(input);
  const excluded = new Set(labels.map((l) => l.address));
  // Balances are looked up for labelled addresses only: no map of every holder.
  const balanceOf = new Map<string, bigint>();
  for (const b of input.balances) if (excluded.has(b.address)) balanceOf.set(b.address, b.balance);
  const base = { totalSupply: input.totalSupplyRaw, decimals: d, dustRaw: input.dustThresholdRaw };
  const sorted = holdersOf(input.balances, input.dustThresholdRaw);
  const raw = concentration({ ...base, balances: input.balances }, sorted, excluded);
  const ex = concentrationWithout(raw, { ...base, balances: input.balances, exclude: excluded });
  // The holders 24 hours before: the window's addresses get their earlier balance, merged into the sorted holders.
  const before =
    input.transfers24h.length === 0
      ? raw
      : holdersAndGiniChanged(sorted, balancesBefore(input.balances, input.transfers24h), input.dustThresholdRaw);
  const views = input.vesting.map((v) => contractView(v, input.asOf));
  const bal = (a: string) => balanceOf.get(a) ?? 0n;
  const circ = circulatingOnchain(input.totalSupplyRaw, {
    vesting: views
      .filter((v) => v.reading.kind !== 'merkle_distributor')
      .map((v) => ({ address: v.reading.address, lockedRaw: v.lockedRaw })),
    distributors: views
      .filter((v) => v.reading.kind === 'merkle_distributor')
      .map((v) => ({ address: v.reading.address, balanceRaw: v.reading.held })),
    treasury: labels
      .filter((l) => l.category === 'treasury')
      .map((l) => ({ address: l.address, balanceRaw: bal(l.address) })),
    burn: input.burnAddresses.map((a) => ({ address: a, balanceRaw: bal(a) })),
  });
  let transferVolumeRaw = 0n;
  for (const t of input.transfers24h)
    if (t.from !== ZERO_ADDRESS && t.to !== ZERO_ADDRESS) transferVolumeRaw += t.value;
  const price = input.market ? known(input.market.priceUsd) : unknown(input.marketGapReason ?? 'no_data');
  return {
    input,
    tokens,
    balanceOf,
    labels,
    excluded,
    raw,
    ex,
    before,
    views,
    circ,
    circulatingRaw: circ.circulatingRaw,
    transferVolumeRaw,
    price,
  };
}

const times = (a: Figure, b: number): Figure => (a.value === null ? a : known(a.value * b));

function supplyMetrics(c: Context): SupplyMetricsPayload {
  const { input, tokens, price } = c;
  const m = input.market;
  const marketReason = input.marketGapReason ?? 'no_data';
  const circ = c.circ;
  const onchain = tokens(circ.circulatingRaw);
  const total = tokens(input.totalSupplyRaw);
  const reported: Figure =
    m?.circulatingSupply != null ? known(m.circulatingSupply) : unknown(m ? 'no_data' : marketReason);
  const div = reported.value !== null ? divergence(onchain, reported.value) : null;
  const divFigure: Figure = div
    ? known(div.relative)
    : unknown(reported.value === null ? (reported.reason ?? 'no_data') : 'not_applicable');
  const maxSupply: Figure = m
    ? m.maxSupply === null
      ? unknown('not_applicable')
      : known(m.maxSupply)
    : unknown(marketReason);
  const fdv: Figure = price.value === null ? price : known(price.value * (m?.maxSupply ?? total));
  const marketCapReported: Figure =
    m?.marketCapUsd != null ? known(m.marketCapUsd) : unknown(m ? 'no_data' : marketReason);
  const s30 = input.supply30d;
  const inflation = inflationMonthly(input.totalSupplyRaw, s30?.totalSupplyRaw ?? null);
  const burn = burnRateMonthly(s30?.burnedRaw ?? null, s30?.totalSupplyRaw ?? null);
  // Known 30-day supply of 0 (the token minted since): no ratio.
  const s30Reason: GapReason = s30 ? 'not_applicable' : (input.supply30dGapReason ?? 'no_data');
  const t = input.asOf;
  let lockedRaw = 0n;
  let unlocked7 = 0n;
  let unlocked30 = 0n;
  let ahead30 = 0n;
  const events = new Map<number, Map<string, bigint>>();
  for (const v of c.views) {
    if (v.reading.kind !== 'merkle_distributor') lockedRaw += v.lockedRaw;
    if (v.schedule === null) continue;
    unlocked7 += unlockedBetween(v.schedule, t - 7 * DAY, t);
    unlocked30 += unlockedBetween(v.schedule, t - 30 * DAY, t);
    ahead30 += unlockedBetween(v.schedule, t, t + 30 * DAY);
    for (const p of v.schedule.pieces) {
      const at = p.kind === 'linear' ? (p.cliff !== undefined && p.cliff > p.start ? p.cliff : null) : p.at;
      if (at === null || at <= t || (v.schedule.revokedAt != null && at > v.schedule.revokedAt)) continue;
      const amount = vested(v.schedule, at) - vested(v.schedule, at - 1);
      if (amount <= 0n) continue;
      const byCategory = events.get(at) ?? new Map<string, bigint>();
      byCategory.set(v.reading.category, (byCategory.get(v.reading.category) ?? 0n) + amount);
      events.set(at, byCategory);
    }
  }
  let next: SupplyMetricsPayload['next_unlock'] = null;
  if (events.size > 0) {
    const at = Math.min(...events.keys());
    const parts = [...events.get(at)!].sort((a, b) => (a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : a[0] < b[0] ? -1 : 1));
    next = {
      date: isoSeconds(at),
      amount: tokens(parts.reduce((s, p) => s + p[1], 0n)),
      category: parts[0]![0],
      categories: parts.map((p) => p[0]).sort(),
    };
  }
  const marketCap = times(price, onchain);
  const figures = {
    market_cap: marketCap,
    market_cap_reported: marketCapReported,
    circulating_supply_reported: reported,
    circulating_supply_divergence: divFigure,
    circulating_supply_divergence_flagged: divFigure,
    max_supply: maxSupply,
    fully_diluted_valuation: fdv,
    inflation_monthly: inflation === null ? unknown(s30Reason) : known(inflation),
    burn_rate_monthly: burn === null ? unknown(s30Reason) : known(burn),
    next_unlock: next === null ? unknown('not_applicable') : { value: next, reason: null },
  };
  const difference = input.replayTotalRaw - input.totalSupplyRaw;
  return {
    market_cap: marketCap.value,
    market_cap_reported: marketCapReported.value,
    circulating_supply: onchain,
    circulating_supply_onchain: onchain,
    circulating_supply_onchain_raw: circ.circulatingRaw.toString(),
    circulating_supply_reported: reported.value,
    circulating_supply_divergence: div?.relative ?? null,
    circulating_supply_divergence_flagged: div?.flagged ?? null,
    deductions: circ.deductions.map((x) => ({
      kind: x.kind,
      addresses: [...x.addresses],
      amount: tokens(x.amountRaw),
      amount_raw: x.amountRaw.toString(),
    })),
    total_supply: total,
    total_supply_raw: input.totalSupplyRaw.toString(),
    max_supply: maxSupply.value,
    fully_diluted_valuation: fdv.value,
    inflation_monthly: inflation,
    burn_rate_monthly: burn,
    locked_supply: tokens(lockedRaw),
    locked_supply_raw: lockedRaw.toString(),
    unlocked_7d: tokens(unlocked7),
    unlocked_30d: tokens(unlocked30),
    unlock_next_30d: tokens(ahead30),
    next_unlock: next,
    supply_reconciliation: {
      replay_total: tokens(input.replayTotalRaw),
      total_supply: total,
      difference: tokens(difference),
      agrees: difference === 0n,
      used: 'total_supply',
    },
    gap_reasons: reasons(figures),
  };
}

function metrics(c: Context): TokenomicsMetricsPayload {
  const { input, tokens, raw, ex, before, price } = c;
  const active = new Set<string>();
  for (const t of input.transfers24h) {
    if (t.from !== ZERO_ADDRESS) active.add(t.from);
    if (t.to !== ZERO_ADDRESS) active.add(t.to);
  }
  const whaleRaw = 100_000n * pow10(input.token.decimals);
  const whales = new Set(raw.sorted.filter((b) => b.balance > whaleRaw).map((b) => b.address));
  let whaleNet = 0n;
  for (const t of input.transfers24h) {
    if (whales.has(t.to)) whaleNet += t.value;
    if (whales.has(t.from)) whaleNet -= t.value;
  }
  const largest = raw.largest ? tokens(raw.largest.balance) : null;
  const noHolders = unknown('no_members');
  const fig = (v: number | null, r: Figure = noHolders): Figure => (v === null ? r : known(v));
  const velocity: Figure =
    c.circulatingRaw > 0n ? known(ratioToFloat(c.transferVolumeRaw, c.circulatingRaw)) : unknown('not_applicable');
  const figures = {
    price,
    largest_holder: fig(largest),
    largest_holder_address: fig(raw.largest ? 0 : null),
    largest_holder_usd: largest === null ? noHolders : times(price, largest),
    largest_holder_ex_infrastructure: fig(ex.largest ? 0 : null),
    largest_holder_ex_infrastructure_address: fig(ex.largest ? 0 : null),
    gini_coeff: fig(raw.gini),
    gini_coeff_change: raw.gini === null || before.gini === null ? noHolders : known(raw.gini - before.gini),
    gini_coeff_ex_infrastructure: fig(ex.gini),
    hhi: fig(raw.hhi),
    hhi_ex_infrastructure: fig(ex.hhi),
    nakamoto_coefficient: fig(raw.nakamoto),
    nakamoto_coefficient_ex_infrastructure: fig(ex.nakamoto),
    top5_concentration: fig(raw.top5Percent),
    top10_concentration: fig(raw.top10Percent),
    top5_concentration_ex_infrastructure: fig(ex.top5Percent),
    top10_concentration_ex_infrastructure: fig(ex.top10Percent),
    whale_ratio: fig(raw.whaleRatioPercent),
    whale_movement_indicator:
      input.totalSupplyRaw > 0n ? known(ratioToFloat(whaleNet, input.totalSupplyRaw)) : unknown('not_applicable'),
    onchain_velocity: velocity,
  };
  const bands = raw.whaleBandsRaw;
  return {
    price: price.value,
    num_token_holders: raw.holders,
    num_token_holders_change_24h: raw.holders - before.holders,
    num_token_holders_ex_infrastructure: ex.holders,
    largest_holder: largest,
    largest_holder_address: raw.largest?.address ?? null,
    largest_holder_usd: figures.largest_holder_usd.value,
    largest_holder_ex_infrastructure: ex.largest ? tokens(ex.largest.balance) : null,
    largest_holder_ex_infrastructure_address: ex.largest?.address ?? null,
    unique_active_wallets_24h: active.size,
    transfer_count_24h: input.transfers24h.length,
    transfer_volume_24h: tokens(c.transferVolumeRaw),
    gini_coeff: raw.gini,
    gini_coeff_change: figures.gini_coeff_change.value,
    gini_coeff_ex_infrastructure: ex.gini,
    hhi: raw.hhi,
    hhi_ex_infrastructure: ex.hhi,
    nakamoto_coefficient: raw.nakamoto,
    nakamoto_coefficient_ex_infrastructure: ex.nakamoto,
    top5_concentration: raw.top5Percent,
    top10_concentration: raw.top10Percent,
    top5_concentration_ex_infrastructure: ex.top5Percent,
    top10_concentration_ex_infrastructure: ex.top10Percent,
    whale_holdings: { '0': tokens(bands['0']!), '1000': tokens(bands['1000']!), '100000': tokens(bands['100000']!) },
    whale_count: raw.whales,
    whale_ratio: raw.whaleRatioPercent,
    whale_movement_indicator: figures.whale_movement_indicator.value,
    onchain_velocity: velocity.value,
    dust_threshold: tokens(input.dustThresholdRaw),
    gap_reasons: reasons(figures),
  };
}

function indicators(c: Context, marketCap: number | null): IndicatorsPayload {
  const { input, tokens, raw, ex, price } = c;
  const m = input.market;
  const marketReason = input.marketGapReason ?? 'no_data';
  const returns = m ? windowReturns(m.chart, input.asOf) : null;
  const vol = returns ? volatility(returns) : { daily: unknown(marketReason), annualised: unknown(marketReason) };
  const ret = (chart: readonly PricePoint[] | null | undefined) => (chart ? windowReturns(chart, input.asOf) : null);
  const corrEth = returns ? correlation(returns, ret(m?.ethChart)) : unknown(marketReason);
  const corrBtc = returns ? correlation(returns, ret(m?.btcChart)) : unknown(marketReason);
  const sharpe = returns ? sharpeRatio(returns) : unknown(marketReason);
  const dom = m ? dominance(marketCap, m.globalMarketCapUsd) : unknown(marketReason);
  const transferUsd = price.value === null ? null : tokens(c.transferVolumeRaw) * price.value;
  const nvtFigure = marketCap === null ? unknown(price.reason ?? 'no_price') : nvt(marketCap, transferUsd);
  const velocity: Figure =
    c.circulatingRaw > 0n ? known(ratioToFloat(c.transferVolumeRaw, c.circulatingRaw)) : unknown('not_applicable');
  const exchangeWallets = new Set(c.labels.filter((l) => l.category === 'exchanges').map((l) => l.address));
  let netflow = 0n;
  for (const t of input.transfers24h) {
    if (exchangeWallets.has(t.to)) netflow += t.value;
    if (exchangeWallets.has(t.from)) netflow -= t.value;
  }
  const netflowTokens = tokens(netflow);
  const growth = holderGrowth(raw.holders, c.before.holders);
  const noHolders = unknown('no_members');
  const fig = (v: number | null): Figure => (v === null ? noHolders : known(v));
  const figures = {
    volatility: vol.daily,
    volatility_annualised: vol.annualised,
    daily_correlation_eth: corrEth,
    daily_correlation_btc: corrBtc,
    market_cap_dominance: dom,
    sharpe_ratio: sharpe,
    sharp_ratio: sharpe,
    top5_concentration: fig(raw.top5Percent),
    top10_concentration: fig(raw.top10Percent),
    top5_concentration_ex_infrastructure: fig(ex.top5Percent),
    top10_concentration_ex_infrastructure: fig(ex.top10Percent),
    nvt: nvtFigure,
    velocity,
    exchange_netflow_usd: times(price, netflowTokens),
    holder_growth: growth,
  };
  return {
    volatility: vol.daily.value,
    volatility_annualised: vol.annualised.value,
    return_window_days: RETURN_WINDOW_DAYS,
    return_days: returns?.size ?? 0,
    daily_correlation_eth: corrEth.value,
    daily_correlation_btc: corrBtc.value,
    market_cap_dominance: dom.value,
    sharpe_ratio: sharpe.value,
    sharp_ratio: sharpe.value,
    risk_free_rate: RISK_FREE_RATE,
    top5_concentration: raw.top5Percent,
    top10_concentration: raw.top10Percent,
    top5_concentration_ex_infrastructure: ex.top5Percent,
    top10_concentration_ex_infrastructure: ex.top10Percent,
    nvt: nvtFigure.value,
    velocity: velocity.value,
    exchange_netflow: netflowTokens,
    exchange_netflow_usd: figures.exchange_netflow_usd.value,
    holder_growth: growth.value,
    gap_reasons: reasons(figures),
  };
}

/**
 * The exchanges group: the tickers' venues and volumes, and the on-chain DEX volume beside them. Without tickers (the
 * market-data source failed or is absent) their figures are null with the tickers' reason while the on-chain DEX
 * volume (a chain figure) stays; the group is null only when both are missing.
 */
function exchangeMetrics(c: Context): ExchangeMetricsPayload | null {
  const { input, tokens, price } = c;
  const onchainReasons: Record<string, GapReason> =
    input.dexVolumeOnchainUsd === null ? { dex_volume_onchain_usd: input.dexVolumeGapReason ?? 'no_data' } : {};
  if (input.tickers === null) {
    if (input.dexVolumeOnchainUsd === null) return null;
    const reason = input.tickersGapReason ?? 'no_data';
    const tickerFigures = {
      num_exchanges_listed: null,
      cex_volume: null,
      dex_volume: null,
      unknown_type_volume_usd: null,
      tickers_kept: null,
      anomalous_tickers: null,
      stale_tickers: null,
      excluded_tickers: null,
      unpriced_tickers: null,
      exchanges: null,
    };
    return {
      ...tickerFigures,
      dex_volume_onchain_usd: input.dexVolumeOnchainUsd,
      gap_reasons: Object.fromEntries(Object.keys(tickerFigures).map((k) => [k, reason])),
    };
  }
  const f = exchangeFigures(input.tickers, input.exchanges);
  const exchangeLabels = c.labels.filter((l) => l.category === 'exchanges');
  const total = input.totalSupplyRaw;
  return {
    num_exchanges_listed: f.venues.length,
    cex_volume: f.cexVolumeUsd,
    dex_volume: f.dexVolumeUsd,
    dex_volume_onchain_usd: input.dexVolumeOnchainUsd,
    unknown_type_volume_usd: f.unknownTypeVolumeUsd,
    tickers_kept: f.keptTickers,
    anomalous_tickers: f.anomalousTickers,
    stale_tickers: f.staleTickers,
    excluded_tickers: f.excludedTickers,
    unpriced_tickers: f.unpricedTickers,
    exchanges: f.venues.map((v) => {
      const wallets = exchangeLabels.filter((l) => labelNamesVenue(l.label, v)).map((l) => l.address);
      let heldRaw = 0n;
      for (const w of wallets) heldRaw += c.balanceOf.get(w) ?? 0n;
      // A venue no label names: what it holds is unknown, not 0.
      const heldFigure: Figure = wallets.length ? known(tokens(heldRaw)) : unknown('no_members');
      const heldPct: Figure = !wallets.length
        ? unknown('no_members')
        : total > 0n
          ? known(ratioToFloat(heldRaw * 100n, total))
          : unknown('not_applicable');
      const figures = {
        exchange_type: { value: v.type, reason: v.type === null ? ('no_data' as const) : null },
        volume_share: v.sharePercent === null ? unknown('no_data') : known(v.sharePercent),
        bid_ask_spread_percentage: v.spreadPercent === null ? unknown('no_data') : known(v.spreadPercent),
        depth_up_usd: v.depthUpUsd === null ? unknown('no_data') : known(v.depthUpUsd),
        depth_down_usd: v.depthDownUsd === null ? unknown('no_data') : known(v.depthDownUsd),
        trust_score: { value: v.trustScore, reason: v.trustScore === null ? ('no_data' as const) : null },
        held: heldFigure,
        market_cap_held_usd: heldFigure.value === null ? heldFigure : times(price, heldFigure.value),
        market_cap_held_percentage: heldPct,
        dominance: heldPct,
      };
      return {
        exchange_name: v.name,
        exchange_id: v.id,
        exchange_type: v.type,
        volume_24h_usd: v.volumeUsd,
        volume_share: v.sharePercent,
        bid_ask_spread_percentage: v.spreadPercent,
        depth_up_usd: v.depthUpUsd,
        depth_down_usd: v.depthDownUsd,
        trust_score: v.trustScore,
        ticker_count: v.tickers,
        held: heldFigure.value,
        market_cap_held_usd: figures.market_cap_held_usd.value,
        market_cap_held_percentage: heldPct.value,
        dominance: heldPct.value,
        wallets,
        gap_reasons: reasons(figures),
      };
    }),
    gap_reasons: onchainReasons,
  };
}

function breakdown(c: Context): BreakdownPayload {
  const { input, tokens } = c;
  const total = input.totalSupplyRaw;
  const pct = (x: bigint) => (total > 0n ? ratioToFloat(x * 100n, total) : null);
  const sums = new Map<HolderCategory, { amount: bigint; addresses: number }>();
  for (const k of HOLDER_CATEGORIES) sums.set(k, { amount: 0n, addresses: 0 });
  let labelled = 0n;
  for (const l of c.labels) {
    const s = sums.get(l.category)!;
    const b = c.balanceOf.get(l.address) ?? 0n;
    s.amount += b;
    s.addresses++;
    labelled += b;
  }
  const categories = Object.fromEntries(
    HOLDER_CATEGORIES.map((k) => {
      const s = sums.get(k)!;
      return [
        k,
        { amount: tokens(s.amount), amount_raw: s.amount.toString(), share: pct(s.amount), addresses: s.addresses },
      ];
    }),
  ) as BreakdownPayload['categories'];
  const rest = total - labelled;
  const share = pct(rest);
  const gaps: Record<string, string> = share === null ? { unlabelled_share: 'not_applicable' } : {};
  return {
    categories,
    unlabelled: { amount: tokens(rest), amount_raw: rest.toString(), share, addresses: c.ex.holders },
    unlabelled_share: share,
    labels: c.labels,
    gap_reasons: gaps,
  };
}

function allocationMetrics(c: Context): AllocationMetricsPayload {
  const { input } = c;
  const allocations = allocationsOut(
    input.allocations,
    c.views,
    input.totalSupplyRaw,
    input.token.decimals,
    input.asOf,
  );
  const byCategory = new Map<string, bigint>();
  for (const a of input.allocations) byCategory.set(a.category, (byCategory.get(a.category) ?? 0n) + a.amountRaw);
  const claimed = new Set(input.allocations.map((a) => a.category));
  for (const v of c.views)
    if (!claimed.has(v.reading.category))
      byCategory.set(
        v.reading.category,
        (byCategory.get(v.reading.category) ?? 0n) + v.reading.held + v.reading.released,
      );
  const total = input.totalSupplyRaw;
  const map: Record<string, number> = {};
  let project = 0n;
  for (const [k, x] of [...byCategory].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (total > 0n) map[k] = ratioToFloat(x * 100n, total);
    if (PROJECT_CATEGORIES.includes(k)) project += x;
  }
  const projectPct = byCategory.size === 0 || total === 0n ? null : ratioToFloat(project * 100n, total);
  return {
    allocation_map: map,
    project_percentage: projectPct,
    allocations,
    gap_reasons: projectPct === null ? { project_percentage: 'no_data' } : ({} as Record<string, string>),
  };
}

export interface RecordHeader {
  readonly token: TokenomicsToken;
  readonly day: string;
  readonly partial: boolean;
  readonly asOf: number;
  readonly blockNumber: number | null;
  readonly dustThresholdRaw: bigint;
}

function header(h: RecordHeader) {
  return {
    date: h.day,
    partial: h.partial,
    as_of: isoSeconds(h.asOf),
    token_address: h.token.address,
    chain: h.token.chain,
    coingecko_id: h.token.coingeckoId,
    block_number: h.blockNumber,
    dust_threshold: toFloat(h.dustThresholdRaw, h.token.decimals),
  };
}

/** One day's record of every group. */
export function tokenomicsRecord(input: TokenomicsInput): TokenomicsRecordPayload {
  const c = context(input);
  const supply = supplyMetrics(c);
  const exchanges = exchangeMetrics(c);
  const gapReasons: Record<string, string> = {};
  if (exchanges === null) gapReasons.exchange_metrics = input.tickersGapReason ?? 'no_data';
  return {
    ...header(input),
    gap_reason: null,
    gap_reasons: gapReasons,
    supply_metrics: supply,
    tokenomics_metrics: metrics(c),
    indicators: indicators(c, supply.market_cap),
    allocation_metrics: allocationMetrics(c),
    exchange_metrics: exchanges,
    breakdown: breakdown(c),
  };
}

/** A day with nothing to compute (no block of the day, or before the token existed): every group null. */
export function tokenomicsGapRecord(h: RecordHeader, reason: GapReason): TokenomicsRecordPayload {
  const groups: GroupName[] = [
    'supply_metrics',
    'tokenomics_metrics',
    'indicators',
    'allocation_metrics',
    'exchange_metrics',
    'breakdown',
  ];
  return {
    ...header(h),
    gap_reason: reason,
    gap_reasons: Object.fromEntries(groups.map((g) => [g, reason])),
    supply_metrics: null,
    tokenomics_metrics: null,
    indicators: null,
    allocation_metrics: null,
    exchange_metrics: null,
    breakdown: null,
  };
}

/** The record of a sub-path: the header and its one group (with the group's reason when it is null). */
export function groupRecord(record: TokenomicsRecordPayload, group: GroupName): Record<string, unknown> {
  const {
    supply_metrics,
    tokenomics_metrics,
    indicators,
    allocation_metrics,
    exchange_metrics,
    breakdown,
    gap_reasons,
    ...head
  } = record;
  const reason = gap_reasons[group];
  return { ...head, gap_reasons: reason ? { [group]: reason } : {}, [group]: record[group] };
}
