/**
 * The stablecoin area's computation (pure): snapshots of each protocol's state, its logs and the DEX area's facts in,
 * the documents of the four stablecoin paths out (docs/methodology/stablecoin-liquidity.md). Chain amounts stay
 * bigints until a figure is presented; every unknown figure is null with its reason.
 */
import { toFloat } from '../../core/decimal.js';
import type { GapReason } from '../../core/gaps.js';
import { roundPriceUsd } from '../../core/price-policy.js';
import { type ScoreRecord, scoreGapReason } from '../../core/score.js';
import { hhi } from '../../core/stats.js';
import { dailyHistoryInstants, HOUR, inDayWindow, isoSeconds, utcDate, utcDayWindow } from '../../core/time.js';
import type { Dated, StablecoinInput, StablecoinOutput, StablecoinProtocolInput } from './compute-types.js';
import type { StableSnapshot } from './facts.js';
import { r, rn } from './figures.js';
import { holderConcentration, replayHolders, ZERO_ADDRESS } from './holders.js';
import { liquityFigures } from './liquity-figures.js';
import { makerFigures } from './maker-figures.js';
import {
  type DexView,
  depthRows,
  dexLiquidityUsd,
  dexView,
  Prices,
  pegOfDay,
  stablePrice,
  stableUsd,
} from './market.js';
import { emptyRecord, LIQUITY_FIELDS, MAKER_FIELDS, readerOf } from './records.js';
import type { CollateralsPayloadEntry, StableScoreRecordEntry, WeeklyRecordEntry } from './schema.js';
import { EXIT_MOVE, type LiquidityScoreInputs, scoreLiquidity } from './score.js';

export type {
  Dated,
  StablecoinDexInput,
  StablecoinInput,
  StablecoinOutput,
  StablecoinProtocolInput,
  StablecoinRef,
} from './compute-types.js';

/**
 * Why holders (and the holder concentration) are null on a day with a snapshot: the Transfer replay does not sum to
 * totalSupply, so it does not reach back to the token's deployment (on mainnet the transfers are read from 8 days
 * back only: ingest.ts `TRANSFER_LOOKBACK`).
 */
const HOLDERS_GAP: GapReason = 'partial_history';

interface DayResult {
  readonly record: WeeklyRecordEntry;
  readonly score: LiquidityScoreInputs | null;
  readonly collaterals?: CollateralsPayloadEntry;
}

function computeProtocol(p: StablecoinProtocolInput, view: DexView, prices: Prices) {
  const ref = p.target;
  const newest = p.snapshots.at(-1);
  if (!newest) return undefined;
  const asOf = newest.timestamp;
  const token = newest.token;
  const reader = readerOf(newest);
  const instants = dailyHistoryInstants(asOf);
  const daySnapshots = instants.map((t) => {
    const window = utcDayWindow(t);
    let best: StableSnapshot | undefined;
    for (const s of p.snapshots) if (inDayWindow(s.timestamp, window)) best = s;
    return best;
  });
  const holders = replayHolders(
    p.transfers,
    daySnapshots.filter((s): s is StableSnapshot => s !== undefined).map((s) => s.blockNumber),
  );
  const days: DayResult[] = instants.map((t, i) => {
    const snap = daySnapshots[i];
    const partial = i === 0;
    if (!snap) return { record: emptyRecord(ref, token, reader, t, partial), score: null };
    const at = snap.timestamp;
    const window = utcDayWindow(t);
    // The stablecoin's price in its quote × the quote's policy price at the instant (the peg is measured against it).
    const market = stablePrice(view, prices, ref, token, at);
    const usd = market?.usd ?? null;
    const absorbQuotes = [...ref.quotes.map((q) => q.address), token];
    const f =
      snap.design === 'maker-mcd'
        ? makerFigures(snap, p.events, prices, view, usd, absorbQuotes)
        : liquityFigures(snap, p.events, prices, usd);
    const hourly: (number | null)[] = [];
    for (let h = window.from; h <= t; h += HOUR)
      hourly.push(stableUsd(view, prices, ref, token, Math.min(h + HOUR - 1, t)));
    const peg = pegOfDay(hourly);
    const depth = depthRows(view, ref, token, at, usd);
    const liquidity = dexLiquidityUsd(view, prices, ref, token, at, usd);
    const replay = holders.get(snap.blockNumber);
    const holdersKnown = replay !== undefined && replay.supply === snap.totalSupply;
    // One day window for every daily figure: [day start, next day start) by block timestamp (core/time.ts).
    const dayEvents = p.events.filter((e) => inDayWindow(e.timestamp, window));
    let minted = 0n;
    let burned = 0n;
    for (const e of p.transfers) {
      if (!inDayWindow(e.timestamp, window) || e.event.source !== 'event' || e.event.kind !== 'transfer') continue;
      if (e.event.from === ZERO_ADDRESS) minted += e.event.value;
      if (e.event.to === ZERO_ADDRESS) burned += e.event.value;
    }
    let liquidations = 0;
    let liquidatedDebt = 0;
    let redemptions = 0;
    let redeemed = 0n;
    const auctions = { kick: 0, redo: 0, take: 0, owe: 0n };
    for (const { event: e } of dayEvents) {
      if (e.source !== 'event') continue;
      if (e.kind === 'bark') {
        liquidations++;
        liquidatedDebt += toFloat(e.due, 45);
      } else if (e.kind === 'trove_liquidated') {
        liquidations++;
        liquidatedDebt += toFloat(e.debt, 18);
      } else if (e.kind === 'redemption') {
        redemptions++;
        redeemed += e.actual;
      } else if (e.kind === 'kick' || e.kind === 'redo') {
        auctions[e.kind]++;
      } else if (e.kind === 'take') {
        auctions.take++;
        auctions.owe += e.owe;
      }
    }
    const L = f.liquity;
    const na = snap.design === 'maker-mcd';
    const stablePools = view.pools.filter((x) => x.token0 === token || x.token1 === token).map((x) => x.address);
    const concentration = holdersKnown
      ? holderConcentration(replay.balances, new Set([...f.exclude, ...stablePools]))
      : null;
    // Concentration by collateral asset: ETH-A, ETH-B and ETH-C are one asset (one price, one crash), not three.
    const byAsset = new Map<string, number | null>();
    for (const c of f.collaterals) {
      const prev = byAsset.get(c.collateral_token_address);
      byAsset.set(
        c.collateral_token_address,
        prev === null || c.collateral_usd === null ? null : (prev ?? 0) + c.collateral_usd,
      );
    }
    const collateralUsd = [...byAsset.values()];
    const collateralUnpriced = collateralUsd.some((x) => x === null);
    const collateralHhi = collateralUnpriced ? null : hhi(collateralUsd as number[]);
    const record = {
      chain: ref.chain,
      protocol: ref.protocol,
      name: ref.name,
      token_address: token,
      ...reader,
      date: utcDate(t),
      partial,
      as_of: isoSeconds(partial ? asOf : at),
      snapshot_block: snap.blockNumber,
      gap_reason: null,
      total_supply: r(f.totalSupply),
      total_supply_raw: snap.totalSupply.toString(),
      circulating_supply: r(f.circulating),
      total_debt: r(f.totalDebt),
      total_debt_base: r(f.totalDebt),
      backed_debt: r(f.backedDebt),
      system_debt: rn(f.systemDebt),
      surplus_buffer: rn(f.surplusBuffer),
      total_debt_usd: usd === null ? null : r(f.totalDebt * usd, 2),
      total_collateral_usd: rn(f.totalCollateralUsd, 2),
      collateral_ratio: rn(f.collateralRatio),
      kind_shares: f.kindShares,
      number_unique_wallets: f.positionsOwners,
      holders: holdersKnown ? replay.holders : null,
      minted: r(toFloat(minted, 18)),
      burned: r(toFloat(burned, 18)),
      dex_liquidity_usd: rn(liquidity, 2),
      depth,
      peg_mean_price: peg ? r(peg.meanPrice) : null,
      peg_max_deviation: peg ? r(peg.maxDeviation) : null,
      peg_hours_outside_band: peg ? peg.hoursOutside : null,
      peg_hours_priced: peg?.hoursPriced ?? 0,
      peg_quote_token_address: market?.quote ?? null,
      peg_quote_price_usd: market ? roundPriceUsd(market.quotePrice.price_usd) : null,
      peg_quote_price_source: market?.quotePrice.source ?? null,
      peg_quote_price_source_ref: market?.quotePrice.source_ref ?? null,
      psm_holdings_usd: rn(f.psmHoldingsUsd, 2),
      psm_fees: f.psmFees,
      stability_pool_deposits: L ? r(toFloat(L.spDeposits, 18)) : null,
      stability_pool_coverage: L && L.systemDebt > 0n ? r(toFloat(L.spDeposits, 18) / f.totalDebt) : null,
      redemptions: L ? redemptions : null,
      redeemed: L ? r(toFloat(redeemed, 18)) : null,
      redemption_rate: L ? r(toFloat(L.redemptionRate, 18)) : null,
      redeemable_within_exit: rn(f.redeemableWithinExit),
      // The chain's own WAD to 10 decimals (the vocabulary's most): checkable against getTCR within 1e-9 relative.
      tcr: L ? r(toFloat(L.tcr, 18), 10) : null,
      tcr_above_critical: L ? L.tcr >= L.ccr : null,
      recovery_mode: L ? L.recoveryMode : null,
      liquidations,
      liquidated_debt: r(liquidatedDebt),
      auctions_started: na ? auctions.kick : null,
      auctions_reset: na ? auctions.redo : null,
      auction_takes: na ? auctions.take : null,
      auction_dai_recovered: na ? r(toFloat(auctions.owe, 45)) : null,
      gap_reasons: {} as Record<string, string>,
    } satisfies WeeklyRecordEntry;
    const gaps = record.gap_reasons;
    if (usd === null) gaps.total_debt_usd = 'no_price';
    if (record.total_collateral_usd === null) gaps.total_collateral_usd = 'no_price';
    if (record.collateral_ratio === null) gaps.collateral_ratio = f.collateralRatioGap ?? 'no_price';
    if (record.holders === null) gaps.holders = HOLDERS_GAP;
    if (liquidity === null) gaps.dex_liquidity_usd = usd === null ? 'no_price' : 'no_data';
    if (!market) {
      for (const k of ['peg_quote_token_address', 'peg_quote_price_usd', 'peg_quote_price_source'])
        gaps[k] = 'no_price';
      gaps.peg_quote_price_source_ref = 'no_price';
    }
    if (!peg) {
      gaps.peg_mean_price = 'no_price';
      gaps.peg_max_deviation = 'no_price';
      gaps.peg_hours_outside_band = 'no_price';
    }
    if (na) {
      for (const k of LIQUITY_FIELDS) gaps[k] = 'not_applicable';
      if (record.psm_holdings_usd === null) gaps.psm_holdings_usd = f.psmFees.length ? 'no_price' : 'no_members';
      if (record.surplus_buffer === null) gaps.surplus_buffer = 'no_data';
    } else {
      gaps.psm_holdings_usd = 'not_applicable';
      for (const k of MAKER_FIELDS) gaps[k] = 'not_applicable';
      if (record.stability_pool_coverage === null) gaps.stability_pool_coverage = 'no_positions';
      if (record.redeemable_within_exit === null) gaps.redeemable_within_exit = 'no_data';
    }
    const depth2 = depth.find((d) => d.price_move === EXIT_MOVE)?.sell_usd ?? null;
    const circulatingUsd = usd === null ? null : f.circulating * usd;
    const score: LiquidityScoreInputs = {
      peg: peg ? { value: peg } : { value: null, gap: 'no_price' },
      exit:
        depth2 === null || circulatingUsd === null || f.backstopUsd === null
          ? { value: null, gap: f.backstopUsd === null && f.backstopGap ? f.backstopGap : 'no_price' }
          : { value: { depthUsd: depth2, backstopUsd: f.backstopUsd, circulatingUsd } },
      buffer:
        f.collateralRatio === null || f.liquidationRatio === null
          ? { value: null, gap: f.collateralRatioGap ?? 'no_data' }
          : {
              value: {
                ratio: f.collateralRatio,
                liquidationRatio: f.liquidationRatio,
                recoveryMode: L?.recoveryMode ?? false,
              },
            },
      absorption: f.stress
        ? {
            value: {
              liquidatableUsd: f.stress.liquidatable * (usd ?? 1),
              absorbableUsd: f.stress.absorbableUsd,
            },
          }
        : { value: null, gap: f.stressGap ?? 'no_data' },
      collateralConcentration:
        collateralHhi === null
          ? { value: null, gap: collateralUnpriced ? 'no_price' : 'no_members' }
          : { value: { collateralHhi } },
      holderConcentration: !holdersKnown
        ? { value: null, gap: HOLDERS_GAP }
        : concentration === null
          ? { value: null, gap: 'no_members' }
          : {
              value: {
                topHolderShare: concentration.share,
                topHolderShareRaw: concentration.rawShare,
                excludedHolders: concentration.excluded,
              },
            },
    };
    const collaterals =
      i === 0
        ? ({
            chain: ref.chain,
            protocol: ref.protocol,
            name: ref.name,
            token_address: token,
            ...reader,
            as_of: isoSeconds(at),
            snapshot_block: snap.blockNumber,
            total_supply: r(f.totalSupply),
            total_debt: r(f.totalDebt),
            total_debt_base: r(f.totalDebt),
            backed_debt: record.backed_debt!,
            system_debt: record.system_debt!,
            surplus_buffer: record.surplus_buffer,
            total_debt_usd: record.total_debt_usd,
            total_collateral_usd: record.total_collateral_usd,
            collateral_ratio: record.collateral_ratio,
            kind_shares: f.kindShares,
            collateral_assets: f.collaterals,
            gap_reasons: {
              ...(record.total_debt_usd === null ? { total_debt_usd: 'no_price' } : {}),
              ...(record.total_collateral_usd === null ? { total_collateral_usd: 'no_price' } : {}),
              ...(record.collateral_ratio === null ? { collateral_ratio: gaps.collateral_ratio! } : {}),
              ...(record.system_debt === null ? { system_debt: gaps.system_debt! } : {}),
              ...(record.surplus_buffer === null ? { surplus_buffer: gaps.surplus_buffer! } : {}),
            },
          } satisfies CollateralsPayloadEntry)
        : undefined;
    return { record, score, ...(collaterals ? { collaterals } : {}) };
  });
  const scores: StableScoreRecordEntry[] = days.map((d, i) => {
    const t = instants[i]!;
    const s: ScoreRecord = d.score
      ? scoreLiquidity(d.score, t)
      : { ...scoreLiquidity(NO_DATA_INPUTS, t), components: [] };
    return {
      chain: ref.chain,
      protocol: ref.protocol,
      ...s,
      date: utcDate(t),
      partial: i === 0,
      gap_reason: d.score ? scoreGapReason(s, 'no_data') : 'no_data',
    };
  });
  return { asOf, weekly: days.map((d) => d.record), collaterals: days[0]!.collaterals, scores };
}

/** A day without a snapshot: nothing to score (the record's gap reason says so). */
const NO_DATA_INPUTS: LiquidityScoreInputs = {
  peg: { value: null, gap: 'no_data' },
  exit: { value: null, gap: 'no_data' },
  buffer: { value: null, gap: 'no_data' },
  absorption: { value: null, gap: 'no_data' },
  collateralConcentration: { value: null, gap: 'no_data' },
  holderConcentration: { value: null, gap: 'no_data' },
};

export function computeStablecoin(input: StablecoinInput): StablecoinOutput {
  const view = dexView(input.dex);
  const prices = new Prices(input.dex.prices, input.feeds ?? []);
  const weekly = new Map<string, Dated<WeeklyRecordEntry[]>>();
  const collaterals = new Map<string, Dated<CollateralsPayloadEntry>>();
  const scores = new Map<string, Dated<StableScoreRecordEntry[]>>();
  const current: StableScoreRecordEntry[] = [];
  let oldest: number | undefined;
  for (const p of input.protocols) {
    const out = computeProtocol(p, view, prices);
    if (!out) continue;
    weekly.set(p.target.protocol, { asOf: out.asOf, data: out.weekly });
    if (out.collaterals) collaterals.set(p.target.protocol, { asOf: out.asOf, data: out.collaterals });
    scores.set(`${p.target.chain}/${p.target.protocol}`, { asOf: out.asOf, data: out.scores });
    current.push(out.scores[0]!);
    oldest = oldest === undefined ? out.asOf : Math.min(oldest, out.asOf);
  }
  current.sort((a, b) => (a.chain + a.protocol < b.chain + b.protocol ? -1 : 1));
  return {
    weekly,
    collaterals,
    scores,
    allMarkets: oldest === undefined ? undefined : { asOf: oldest, data: current },
  };
}
