/**
 * Exchange figures from the market-data source's tickers of a coin (CoinGecko `/coins/{id}/tickers` with depth) and
 * its exchanges' `centralized` flags (docs/methodology/tokenomics.md "Exchanges"):
 *
 * - a ticker flagged `is_anomaly` or `is_stale` is left out of every figure and counted (`anomalous_tickers`,
 *   `stale_tickers`; one both flagged counts in both, and once in `excluded_tickers`);
 * - a venue is a `market.identifier` (else its `market.name`, else `unknown`) with at least one kept ticker; its
 *   type is `cex` or `dex` from the exchange's `centralized` flag, null when the exchange is unknown (its volume is
 *   then in neither CEX nor DEX volume, and counted in `unknown_type_volume_usd`);
 * - volume: Σ `converted_volume.usd` of the kept tickers (the source's rolling 24 hours); share = the venue's volume /
 *   all kept volume × 100; spread: the volume-weighted mean of its tickers' `bid_ask_spread_percentage`; depth:
 *   Σ `cost_to_move_up_usd` and Σ `cost_to_move_down_usd` (±2 %), null when one of its tickers lacks it; trust:
 *   the worst `trust_score` of its tickers (red < yellow < green);
 * - tokens held in a venue's labelled wallets: the balances of the labels of category `exchanges` that name the venue
 *   (`labelNamesVenue`); null (`no_members`) for a venue no label names, never 0.
 */

/** The fields of a CoinGecko ticker this area reads (the client's `TickerGetResponse.Ticker` maps onto it). */
export interface Ticker {
  readonly market: { readonly name?: string | null; readonly identifier?: string | null };
  readonly last: number | null;
  readonly volume: number | null;
  readonly converted_volume: { readonly usd?: number | null };
  readonly converted_last: { readonly usd?: number | null };
  readonly bid_ask_spread_percentage?: number | null;
  readonly cost_to_move_up_usd?: number | null;
  readonly cost_to_move_down_usd?: number | null;
  readonly trust_score: string | null;
  readonly is_anomaly: boolean;
  readonly is_stale: boolean;
  readonly timestamp: string | null;
}

/** `/exchanges/{id}`'s flag (or `/exchanges/list` with it), by exchange identifier. */
export interface ExchangeInfo {
  readonly id: string;
  readonly name: string;
  readonly centralized: boolean;
}

export interface Venue {
  readonly id: string;
  readonly name: string;
  readonly type: 'cex' | 'dex' | null;
  readonly volumeUsd: number;
  readonly sharePercent: number | null;
  readonly spreadPercent: number | null;
  readonly depthUpUsd: number | null;
  readonly depthDownUsd: number | null;
  readonly trustScore: string | null;
  readonly tickers: number;
}

export interface ExchangeFigures {
  readonly venues: readonly Venue[];
  readonly cexVolumeUsd: number;
  readonly dexVolumeUsd: number;
  readonly unknownTypeVolumeUsd: number;
  readonly totalVolumeUsd: number;
  readonly keptTickers: number;
  readonly anomalousTickers: number;
  readonly staleTickers: number;
  readonly excludedTickers: number;
  /** Kept tickers without a USD volume (in no volume). */
  readonly unpricedTickers: number;
}

const TRUST_RANK: Record<string, number> = { red: 0, yellow: 1, green: 2 };

export function exchangeFigures(tickers: readonly Ticker[], exchanges: readonly ExchangeInfo[]): ExchangeFigures {
  const info = new Map(exchanges.map((e) => [e.id, e]));
  let anomalous = 0;
  let stale = 0;
  let excluded = 0;
  let unpriced = 0;
  const groups = new Map<string, { name: string; tickers: Ticker[] }>();
  for (const t of tickers) {
    if (t.is_anomaly) anomalous++;
    if (t.is_stale) stale++;
    if (t.is_anomaly || t.is_stale) {
      excluded++;
      continue;
    }
    const id = t.market.identifier || t.market.name || 'unknown';
    const g = groups.get(id) ?? { name: t.market.name || id, tickers: [] };
    g.tickers.push(t);
    groups.set(id, g);
  }
  const usd = (t: Ticker): number | null => {
    const v = t.converted_volume.usd;
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
  };
  let total = 0;
  for (const g of groups.values())
    for (const t of g.tickers) {
      const v = usd(t);
      if (v === null) unpriced++;
      else total += v;
    }
  const venues: Venue[] = [];
  let cex = 0;
  let dex = 0;
  let unknownType = 0;
  for (const [id, g] of groups) {
    const e = info.get(id);
    const type = e === undefined ? null : e.centralized ? 'cex' : 'dex';
    let volume = 0;
    let spreadWeighted = 0;
    let spreadWeight = 0;
    let up: number | null = 0;
    let down: number | null = 0;
    let trust: string | null = null;
    for (const t of g.tickers) {
      const v = usd(t) ?? 0;
      volume += v;
      const s = t.bid_ask_spread_percentage;
      if (typeof s === 'number' && Number.isFinite(s) && v > 0) {
        spreadWeighted += s * v;
        spreadWeight += v;
      }
      // A sum over an unknown part is unknown: one ticker without depth leaves the venue's depth null.
      up = up !== null && typeof t.cost_to_move_up_usd === 'number' ? up + t.cost_to_move_up_usd : null;
      down = down !== null && typeof t.cost_to_move_down_usd === 'number' ? down + t.cost_to_move_down_usd : null;
      if (t.trust_score !== null && t.trust_score in TRUST_RANK) {
        if (trust === null || TRUST_RANK[t.trust_score]! < TRUST_RANK[trust]!) trust = t.trust_score;
      }
    }
    if (type === 'cex') cex += volume;
    else if (type === 'dex') dex += volume;
    else unknownType += volume;
    venues.push({
      id,
      name: e?.name ?? g.name,
      type,
      volumeUsd: volume,
      sharePercent: total > 0 ? (volume / total) * 100 : null,
      spreadPercent: spreadWeight > 0 ? spreadWeighted / spreadWeight : null,
      depthUpUsd: up,
      depthDownUsd: down,
      trustScore: trust,
      tickers: g.tickers.length,
    });
  }
  venues.sort((a, b) => b.volumeUsd - a.volumeUsd || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    venues,
    cexVolumeUsd: cex,
    dexVolumeUsd: dex,
    unknownTypeVolumeUsd: unknownType,
    totalVolumeUsd: total,
    keptTickers: tickers.length - excluded,
    anomalousTickers: anomalous,
    staleTickers: stale,
    excludedTickers: excluded,
    unpricedTickers: unpriced,
  };
}

/**
 * Whether an exchange label names this venue, case-insensitive: its identifier or name, or the identifier followed by
 * `-` and a wallet's own slug (`binance-hot-1` is one of `binance`'s wallets).
 */
export function labelNamesVenue(label: string, venue: { id: string; name: string }): boolean {
  const l = label.trim().toLowerCase();
  const id = venue.id.toLowerCase();
  return l === id || l === venue.name.toLowerCase() || l.startsWith(`${id}-`);
}
