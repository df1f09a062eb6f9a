import { HOUR } from '../../../core/time.js';
import type { ManifestToken, WorldManifest } from '../../world/manifest.js';
import { pow } from '../../world/pow.js';
import type { WorldView } from '../../world/view.js';
import { streamRng } from '../base/generate.js';

/**
 * What the GMX oracle keeper stand-in quotes: the tokens of the sandbox's GMX deployment on Arbitrum at the world's
 * reference prices. Pure: a function of the world view, the seed and the instant.
 *
 * The tokens are the Arbitrum chain's manifest tokens (ERC-20s with decimals) and, from the manifest's `gmx` section
 * (written by `protocols/gmx`: `sections.gmx`, or a typed `gmx` field), its `tokens`: the deployment's names for them
 * and the synthetic index tokens its markets trade (`synthetic: true`: a pseudo-address, a symbol, decimals and the
 * world price they follow, `priceSymbol`, default the symbol). Its `oracleDecimals`, if any, is not read: the keeper
 * states its own precision. The section's markets name index, long and short tokens by address; every
 * one must be a manifest token or a listed synthetic token, or the keeper has no price for it (the stand-in refuses
 * to start quoting, as the real keeper would not list a market it cannot price).
 *
 * A price is the reference price of the last closed hour at the instant asked (the world records an hour when the
 * block closing it is mined, `view.hours()`), before any hour the manifest's starting prices. Min and max straddle
 * it by a half-spread drawn per token and hour from the seed (0.5–5 bp for volatile tokens, up to 0.5 bp for
 * stablecoins), so the same seed and instant give the same quote.
 */

/** A market of the GMX section, as the stand-in reads it. */
export interface GmxSectionMarket {
  readonly marketToken: string;
  readonly indexToken: string;
  readonly longToken: string;
  readonly shortToken: string;
  readonly synthetic?: boolean;
}

/** A token of the GMX section: a synthetic index token (no contract) or one the manifest already lists. */
export interface GmxSectionToken {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly synthetic?: boolean;
  /** The world's price symbol the token follows (default `symbol`): a synthetic BTC follows `WBTC`. */
  readonly priceSymbol?: string;
}

export interface GmxSection {
  readonly markets: readonly GmxSectionMarket[];
  readonly tokens?: readonly GmxSectionToken[];
}

/** A token the keeper quotes. */
export interface OracleToken {
  readonly address: string;
  /** GMX's name for it (`ETH` for the wrapped native token, `BTC` for WBTC, as GMX's keeper names them). */
  readonly symbol: string;
  readonly decimals: number;
  readonly synthetic: boolean;
  /** The key of the world's reference prices it follows. */
  readonly priceSymbol: string;
  readonly stable: boolean;
}

/** GMX's keeper names wrapped ETH and BTC by the underlying asset. */
const GMX_SYMBOL: Readonly<Record<string, string>> = { WETH: 'ETH', WBTC: 'BTC' };

/** The `gmx` section of a manifest, when it has one. */
export function gmxSection(manifest: WorldManifest): GmxSection | undefined {
  const section = (manifest as { gmx?: unknown }).gmx ?? manifest.sections?.gmx;
  if (!section || typeof section !== 'object' || !Array.isArray((section as GmxSection).markets)) return undefined;
  return section as GmxSection;
}

/** The tokens the keeper quotes on the chain of `manifest` (Arbitrum's). */
export function oracleTokens(manifest: WorldManifest): OracleToken[] {
  const out = new Map<string, OracleToken>();
  const fromManifest = (t: ManifestToken): OracleToken => ({
    address: t.address,
    symbol: GMX_SYMBOL[t.symbol] ?? t.symbol,
    decimals: t.decimals,
    synthetic: false,
    priceSymbol: t.symbol,
    stable: t.kind === 'stable',
  });
  for (const t of manifest.tokens) out.set(t.address.toLowerCase(), fromManifest(t));
  const section = gmxSection(manifest);
  // The section's tokens (protocols/gmx lists every token its markets use) name them as the deployment does.
  for (const t of section?.tokens ?? []) {
    const known = out.get(t.address.toLowerCase());
    out.set(t.address.toLowerCase(), {
      address: t.address,
      symbol: t.symbol,
      decimals: t.decimals,
      synthetic: t.synthetic ?? !known,
      priceSymbol: t.priceSymbol ?? known?.priceSymbol ?? t.symbol,
      stable: known?.stable ?? false,
    });
  }
  for (const m of section?.markets ?? []) {
    for (const token of [m.indexToken, m.longToken, m.shortToken]) {
      if (!out.has(token.toLowerCase())) {
        throw new Error(`gmx_oracle stand-in: market ${m.marketToken} names token ${token}, which has no price`);
      }
    }
  }
  return [...out.values()];
}

/** One quote in GMX's ticker format. */
export interface OracleQuote {
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly minPrice: string;
  readonly maxPrice: string;
  readonly oracleDecimals: number;
  readonly updatedAt: number;
  readonly timestamp: number;
}

/** The reference prices in force at `nowMs` and when they were set (Unix seconds). */
export function referencePrices(
  view: Pick<WorldView, 'hours'>,
  manifest: WorldManifest,
  nowMs: number,
): { prices: Readonly<Record<string, number>>; at: number } {
  const hours = view.hours();
  for (let i = hours.length - 1; i >= 0; i--) {
    const h = hours[i]!;
    if ((h.hour + HOUR) * 1000 <= nowMs) return { prices: h.prices, at: h.hour + HOUR };
  }
  return {
    prices: Object.fromEntries(manifest.tokens.map((t) => [t.symbol, t.initialPriceUsd])),
    at: manifest.genesisTimestamp,
  };
}

/** The half-spread of a token's quote at a price instant, as a fraction. */
export function halfSpread(seed: number, token: OracleToken, at: number): number {
  const u = streamRng(seed, 'gmx_oracle', 'spread', token.symbol, at).next();
  return (token.stable ? u * 0.5 : 0.5 + u * 4.5) / 10_000;
}

/**
 * A USD price per whole token as the keeper writes it: a compact integer with `p` decimals, times 10^oracleDecimals,
 * where oracleDecimals = 30 − token decimals − p (GMX's `precision`; gmx-synthetics `utils/prices.ts` pairs WETH's
 * 4 price decimals with precision 8), so the result is USD per smallest unit × 10^30. About 12 significant digits.
 */
export function keeperPrice(usd: number, decimals: number): { price: bigint; oracleDecimals: number } {
  const magnitude = usd > 0 ? Math.floor(Math.log10(usd)) : 0;
  const p = Math.max(0, Math.min(30 - decimals, 11 - magnitude));
  const compact = BigInt(Math.round(usd * pow(10, p)));
  const oracleDecimals = 30 - decimals - p;
  return { price: compact * 10n ** BigInt(oracleDecimals), oracleDecimals };
}

/** Every token's ticker at `nowMs`: the tokens whose price symbol the world prices. */
export function tickersAt(seed: number, view: Pick<WorldView, 'hours'>, manifest: WorldManifest, nowMs: number) {
  const { prices, at } = referencePrices(view, manifest, nowMs);
  const out: OracleQuote[] = [];
  for (const token of oracleTokens(manifest)) {
    const reference = prices[token.priceSymbol];
    if (reference === undefined || !(reference > 0)) continue;
    const s = halfSpread(seed, token, at);
    const min = keeperPrice(reference * (1 - s), token.decimals);
    const max = keeperPrice(reference * (1 + s), token.decimals);
    out.push({
      tokenAddress: token.address,
      tokenSymbol: token.symbol,
      minPrice: min.price.toString(),
      maxPrice: max.price.toString(),
      oracleDecimals: Math.min(min.oracleDecimals, max.oracleDecimals),
      updatedAt: at * 1000,
      timestamp: Math.floor(nowMs / 1000),
    });
  }
  return out;
}
