/**
 * The liquidations object of a market's analytics (pure): the week's liquidations counted and valued by UTC day,
 * the most recent listed in full, each leg valued at its token's policy price at the liquidation's block time.
 */
import { type PolicyPrice, roundPriceUsd, roundUsd } from '../../core/price-policy.js';
import { DAY, dailyHistoryInstants, isoSeconds, utcDate, utcDayWindow } from '../../core/time.js';
import type { MarketInput } from './compute.js';
import type { MarketSnapshot } from './facts.js';
import type { LiquidationDayEntry, LiquidationSummary } from './schema.js';
import { toUnits } from './units.js';

/** Recent liquidations listed in full in the market analytics. */
const RECENT_LIQUIDATIONS = 20;

/** One USD precision with liquid staking (core/price-policy `roundUsd`): never 0 beside a non-zero amount. */
const usd = roundUsd;

/** A liquidation leg's published price: the policy price at the block time, with its source (8 decimals). */
function legPrice(p: PolicyPrice | null): PolicyPrice | null {
  if (!p) return null;
  const alternative = p.alternative_price_usd === null ? null : roundPriceUsd(p.alternative_price_usd);
  return { ...p, price_usd: roundPriceUsd(p.price_usd), alternative_price_usd: alternative };
}

/**
 * The liquidations object of a market: counts and USD amounts by UTC day, each liquidation's debt repaid and
 * collateral seized valued at the policy price of its token at the liquidation's block time (`priceAt`: the feed
 * answer at or before it, else the DEX price of the instant; the source is published on each recent row).
 */
export function liquidationSummary(
  m: MarketInput,
  snapshot: MarketSnapshot,
  asOf: number,
  priceAt: (token: string, t: number) => PolicyPrice | null,
): LiquidationSummary {
  const decimalsOf = (token: string) =>
    snapshot.reserves.find((r) => r.asset === token)?.decimals ??
    m.source.assets.find((a) => a.address === token)?.decimals ??
    18;
  const instants = dailyHistoryInstants(asOf);
  const days = instants.map((t) => utcDate(t));
  // One object, one window: the totals are the sums of the 7 UTC days of its rows, [oldest day's start, as_of]
  // (core/time.ts). The rolling 604,800 s count (`*_7d` in the vocabulary) is served apart, named as one.
  const windowFrom = utcDayWindow(instants.at(-1)!).from;
  const inWindow = m.liquidations.filter((l) => l.timestamp >= windowFrom && l.timestamp <= asOf);
  const rolling7d = m.liquidations.filter((l) => l.timestamp > asOf - 7 * DAY && l.timestamp <= asOf).length;
  const byDay = new Map<string, LiquidationDayEntry>(
    days.map((date, i) => [
      date,
      { date, partial: i === 0, count: 0, debt_repaid_usd: 0, collateral_seized_usd: 0, gap_reasons: {} },
    ]),
  );
  const rows = inWindow.map((l) => {
    const debt = toUnits(l.amount, decimalsOf(l.asset));
    const collateral = toUnits(l.collateralAmount, decimalsOf(l.collateralAsset));
    // One price per token per instant: the amount × the published price, so a client recounts it exactly.
    const debtPrice = legPrice(priceAt(l.asset, l.timestamp));
    const collateralPrice = legPrice(priceAt(l.collateralAsset, l.timestamp));
    return {
      l,
      debt,
      collateral,
      debtPrice,
      collateralPrice,
      debtUsd: debtPrice === null ? null : debt * debtPrice.price_usd,
      collateralUsd: collateralPrice === null ? null : collateral * collateralPrice.price_usd,
    };
  });
  for (const r of rows) {
    const day = byDay.get(utcDate(r.l.timestamp));
    if (!day) continue;
    day.count += 1;
    // A sum over an unpriced liquidation is unknown (API.md): null with the reason, never the priced part alone.
    day.debt_repaid_usd = sumUsd(day.debt_repaid_usd, r.debtUsd);
    day.collateral_seized_usd = sumUsd(day.collateral_seized_usd, r.collateralUsd);
    if (day.debt_repaid_usd === null) day.gap_reasons.debt_repaid_usd = 'no_price';
    if (day.collateral_seized_usd === null) day.gap_reasons.collateral_seized_usd = 'no_price';
  }
  const debtRepaid = rows.reduce<number | null>((s, r) => sumUsd(s, r.debtUsd), 0);
  const collateralSeized = rows.reduce<number | null>((s, r) => sumUsd(s, r.collateralUsd), 0);
  return {
    window_days: 7,
    count: rows.length,
    count_7d: rolling7d,
    debt_repaid_usd: debtRepaid,
    collateral_seized_usd: collateralSeized,
    gap_reasons: {
      ...(debtRepaid === null ? { debt_repaid_usd: 'no_price' } : {}),
      ...(collateralSeized === null ? { collateral_seized_usd: 'no_price' } : {}),
    },
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
        debt_price: r.debtPrice,
        collateral_asset: r.l.collateralAsset,
        collateral_seized_token: r.collateral,
        collateral_seized_usd: r.collateralUsd === null ? null : usd(r.collateralUsd),
        collateral_price: r.collateralPrice,
        gap_reasons: {
          ...(r.debtUsd === null ? { debt_repaid_usd: 'no_price', debt_price: 'no_price' } : {}),
          ...(r.collateralUsd === null ? { collateral_seized_usd: 'no_price', collateral_price: 'no_price' } : {}),
          ...singleSource('debt_price', r.debtPrice),
          ...singleSource('collateral_price', r.collateralPrice),
        },
      })),
  };
}

/** The reasons of a leg price's null comparison fields: one source only, the other has no price at the instant. */
function singleSource(field: string, p: PolicyPrice | null): Record<string, string> {
  return p && p.alternative_price_usd === null
    ? { [`${field}.alternative_price_usd`]: 'no_price', [`${field}.disagreement`]: 'no_price' }
    : {};
}

/** a + b in USD (rounded), unknown when either is. */
function sumUsd(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : usd(a + b);
}
