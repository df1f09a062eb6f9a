/**
 * One price policy for every area (API.md "Conventions", docs/methodology/prices.md "Policy across areas"): which
 * source prices a token at an instant, with what confidence, and when two sources disagree enough to flag a figure.
 * Pure: the candidate prices in, the chosen price out.
 *
 * - An on-chain oracle feed wins while it is fresh (its last answer no older than its heartbeat plus a grace): it
 *   is what lending markets value collateral and liquidate at, it aggregates many venues and a single thin pool
 *   cannot move it.
 * - The DEX price (docs/methodology/prices.md) prices what no fresh feed covers, with its own confidence.
 * - When both exist and differ by more than `DISAGREEMENT_TOLERANCE`, the chosen price is `flagged` and its
 *   confidence halved; the other source's price and the gap are published beside it.
 * - One figure uses one price per token: a ratio never divides a quantity valued at one source by a quantity of the
 *   same token valued at the other (callers take `price_usd` of one `PolicyPrice` for both).
 */

/** Two sources of one token's price may differ by 2 % (the DEX price's own agreement tolerance) before a flag. */
export const DISAGREEMENT_TOLERANCE = 0.02;

/**
 * A feed's answer is fresh until heartbeat × 1.5: Chainlink feeds post at their heartbeat at the latest, and a
 * half-heartbeat grace absorbs block timing and a late keeper without trusting a feed that stopped.
 */
export const FEED_FRESHNESS_FACTOR = 1.5;

/** Confidence of a fresh oracle answer when no DEX price contradicts it. */
export const ORACLE_CONFIDENCE = 0.95;

export type PriceSource = 'oracle' | 'dex' | 'market_oracle';

export interface OracleCandidate {
  readonly priceUsd: number;
  /** Unix seconds of the answer. */
  readonly updatedAt: number;
  /** Seconds; null when the feed's heartbeat is unknown (then the answer counts as fresh for one day). */
  readonly heartbeat: number | null;
  /** What was read: the feed or the market's oracle address. */
  readonly ref: string;
  /** `market_oracle`: a lending market's own oracle (Morpho); `oracle`: a price feed. */
  readonly kind?: 'oracle' | 'market_oracle';
}

export interface DexCandidate {
  readonly priceUsd: number;
  /** (0, 1], from docs/methodology/prices.md. */
  readonly confidence: number;
  readonly ref: string;
}

/** A price as figures publish it (snake_case: it is served). */
export interface PolicyPrice {
  readonly price_usd: number;
  readonly source: PriceSource;
  /** What was read (the feed address or the DEX price's pools). */
  readonly source_ref: string;
  /** In (0, 1]. */
  readonly confidence: number;
  /** The other source's price, when there is one. */
  readonly alternative_price_usd: number | null;
  /** |chosen / alternative − 1|, when both exist (4 decimals). */
  readonly disagreement: number | null;
  /** True when the two sources differ by more than `DISAGREEMENT_TOLERANCE`. */
  readonly flagged: boolean;
}

const DAY = 86_400;

export function isFresh(o: OracleCandidate, at: number): boolean {
  const horizon = o.heartbeat === null ? DAY : o.heartbeat * FEED_FRESHNESS_FACTOR;
  return o.updatedAt <= at && at - o.updatedAt <= horizon;
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/**
 * Chooses the price of one token at `at` from its candidates: a fresh oracle answer, else the DEX price, else a
 * stale oracle answer with low confidence (0.25 × its fresh confidence, so the figure says how weak it is), else
 * null (unpriced: the figures that need it are null with a gap reason, never zero).
 */
export function choosePrice(
  at: number,
  oracle: OracleCandidate | null | undefined,
  dex: DexCandidate | null | undefined,
): PolicyPrice | null {
  const o = oracle && Number.isFinite(oracle.priceUsd) && oracle.priceUsd > 0 && oracle.updatedAt <= at ? oracle : null;
  const d = dex && Number.isFinite(dex.priceUsd) && dex.priceUsd > 0 ? dex : null;
  const gap = o && d ? round4(Math.abs(o.priceUsd / d.priceUsd - 1)) : null;
  const flagged = gap !== null && gap > DISAGREEMENT_TOLERANCE;
  if (o && isFresh(o, at)) {
    return {
      price_usd: o.priceUsd,
      source: o.kind ?? 'oracle',
      source_ref: o.ref,
      confidence: round4(ORACLE_CONFIDENCE * (flagged ? 0.5 : 1)),
      alternative_price_usd: d ? d.priceUsd : null,
      disagreement: gap,
      flagged,
    };
  }
  if (d) {
    return {
      price_usd: d.priceUsd,
      source: 'dex',
      source_ref: d.ref,
      confidence: round4(d.confidence * (flagged ? 0.5 : 1)),
      alternative_price_usd: o ? o.priceUsd : null,
      disagreement: gap,
      flagged,
    };
  }
  if (o) {
    return {
      price_usd: o.priceUsd,
      source: o.kind ?? 'oracle',
      source_ref: o.ref,
      confidence: round4(ORACLE_CONFIDENCE * 0.25),
      alternative_price_usd: null,
      disagreement: null,
      flagged: false,
    };
  }
  return null;
}

/** One answer of a USD price feed (a Chainlink round; a lending market's oracle read at a block). */
export interface FeedAnswer {
  /** Lowercase address of the token the feed prices. */
  readonly token: string;
  readonly priceUsd: number;
  /** Unix seconds of the answer. */
  readonly updatedAt: number;
  /** Seconds; null when unknown (the answer then counts as fresh for one day). */
  readonly heartbeat: number | null;
  /** The feed's address. */
  readonly ref: string;
}

/**
 * The policy's feed candidate for `token` at `at`: the newest answer at or before `at` (the feed's state at that
 * instant; a later answer is not known then). Null without one.
 */
export function feedCandidateAt(answers: readonly FeedAnswer[], token: string, at: number): OracleCandidate | null {
  const t = token.toLowerCase();
  let best: FeedAnswer | undefined;
  for (const a of answers) {
    if (a.token !== t || a.updatedAt > at || !(a.priceUsd > 0)) continue;
    if (!best || a.updatedAt > best.updatedAt) best = a;
  }
  return best
    ? { priceUsd: best.priceUsd, updatedAt: best.updatedAt, heartbeat: best.heartbeat, ref: best.ref, kind: 'oracle' }
    : null;
}

/**
 * A protocol's own oracle price published beside the policy price (Maker's OSM, Liquity's PriceFeed, a Morpho
 * market's oracle): its gap to the policy price, `|own / policy − 1|` (4 decimals), and the flag above
 * `DISAGREEMENT_TOLERANCE`, as the policy flags two disagreeing sources. Null gap (no flag) without both prices.
 */
export function besidePolicy(
  own: number | null,
  policy: number | null,
): { disagreement: number | null; flagged: boolean } {
  if (own === null || policy === null || !(own > 0) || !(policy > 0)) return { disagreement: null, flagged: false };
  const gap = round4(Math.abs(own / policy - 1));
  return { disagreement: gap, flagged: gap > DISAGREEMENT_TOLERANCE };
}

/** Decimals of a published USD amount in the areas that value positions (lending, liquid staking). */
export const USD_DECIMALS = 6;

/**
 * A USD amount as published: 6 decimals (a millionth of a dollar), and a non-zero amount too small for them keeps 6
 * significant digits instead of reading 0 beside a non-zero token amount (a few wei of ETH are worth 1e-15 USD).
 */
export function roundUsd(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const fixed = Math.round(x * 10 ** USD_DECIMALS) / 10 ** USD_DECIMALS;
  return fixed === 0 ? Number(x.toPrecision(6)) : fixed;
}

/** A USD price as published: 8 decimals (the precision of the USD feeds), 8 significant digits below them. */
export function roundPriceUsd(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const fixed = Math.round(x * 1e8) / 1e8;
  return fixed === 0 ? Number(x.toPrecision(8)) : fixed;
}
