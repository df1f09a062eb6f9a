/**
 * The USD price of a chain's native asset per UTC day (ETH for Ethereum, OP and Arbitrum; BTC for Bitcoin), under
 * the one price policy (core/price-policy `choosePrice`, docs/methodology/prices.md): a fresh ETH-USD / BTC-USD feed
 * answer wins, else the DEX area's hourly price of the wrapped token (WETH, WBTC), else a stale feed answer at low
 * confidence, else null (the USD figure is then null with `no_price`). A day is priced at its last second, the
 * running day at `asOf`: no price from after the instant a record describes.
 */
import type { Kysely } from 'kysely';
import { choosePrice, type DexCandidate, type OracleCandidate } from '../../core/price-policy.js';
import { DAY, HOUR } from '../../core/time.js';
import { bookToken } from '../../registry/address-book.js';
import type { Database } from '../../store/schema.js';
import { DexReadModel, type TokenPriceFact } from '../dex/public.js';
import type { AreaEnv } from '../kit/module.js';
import { OracleRepository, type OracleRoundFact, oracleTargets } from '../oracles/public.js';

export type NativeAsset = 'ETH' | 'BTC';

/** A day's native price as the blockchain records publish it (`native_price`). */
export interface NativeUsd {
  readonly usd: number;
  /** `oracle` (a feed), `dex` (the DEX area's hourly price). */
  readonly source: string;
  readonly confidence: number;
}

/** A DEX hourly price stands for an instant up to this long after its hour (as in the lending area). */
export const DEX_PRICE_MAX_AGE = 6 * HOUR;

/** Where an asset's prices are read: its USD feeds and its wrapped token on the chains read. */
export interface NativePriceRefs {
  readonly feeds: readonly { chain: string; address: string; heartbeatSeconds: number }[];
  readonly tokens: readonly { chain: string; address: string }[];
}

const WRAPPED: Record<NativeAsset, string> = { ETH: 'WETH', BTC: 'WBTC' };

export function nativePriceRefs(
  env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>,
  asset: NativeAsset,
): NativePriceRefs {
  const feeds = oracleTargets(env)
    .filter((f) => f.pair === `${asset}-USD`)
    .map((f) => ({ chain: f.chain, address: f.address, heartbeatSeconds: f.heartbeatSeconds }));
  const chains = env.sources.get('evm')?.ids ?? [];
  const tokens = chains.flatMap((chain) => {
    const t = bookToken(env.book, chain, WRAPPED[asset]);
    return t ? [{ chain, address: t.address.toLowerCase() }] : [];
  });
  return { feeds, tokens };
}

/** The UTC day `date`'s pricing instant: its last second, or `asOf` for the running day. */
export function pricingInstant(date: string, asOf: number): number {
  const end = Date.parse(`${date}T00:00:00Z`) / 1000 + DAY - 1;
  return Math.min(end, asOf);
}

/** Pure: the policy price at `t` from a feed's rounds (answers scaled by `decimals`) and the DEX's hourly prices. */
export function nativeUsdAt(
  t: number,
  feed: { rounds: readonly OracleRoundFact[]; decimals: number | null; heartbeatSeconds: number; ref: string } | null,
  dex: readonly TokenPriceFact[],
): NativeUsd | null {
  let oracle: OracleCandidate | null = null;
  if (feed && feed.decimals !== null) {
    let newest: OracleRoundFact | undefined;
    for (const r of feed.rounds) if (r.updatedAt <= t && (!newest || r.updatedAt > newest.updatedAt)) newest = r;
    if (newest && newest.answer > 0n) {
      oracle = {
        priceUsd: Number(newest.answer) / 10 ** feed.decimals,
        updatedAt: newest.updatedAt,
        heartbeat: feed.heartbeatSeconds,
        ref: feed.ref,
      };
    }
  }
  let best: TokenPriceFact | undefined;
  for (const p of dex) {
    if (p.hour > t || p.hour <= t - DEX_PRICE_MAX_AGE - HOUR) continue;
    if (!best || p.hour > best.hour) best = p;
  }
  const candidate: DexCandidate | null = best
    ? { priceUsd: best.priceUsd, confidence: best.confidence, ref: best.source }
    : null;
  const chosen = choosePrice(t, oracle, candidate);
  return chosen ? { usd: chosen.price_usd, source: chosen.source, confidence: chosen.confidence } : null;
}

/**
 * The native asset's USD price for each UTC day of `days` (YYYY-MM-DD), from the oracle and DEX areas' stored facts
 * (their `public.ts`): `ReadonlyMap<day, NativeUsd | null>`. The first feed of the asset with answers is used.
 */
export async function loadNativeUsdByDay(
  db: Kysely<Database>,
  env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>,
  asset: NativeAsset,
  days: readonly string[],
  asOf: number,
): Promise<ReadonlyMap<string, NativeUsd | null>> {
  const refs = nativePriceRefs(env, asset);
  const oracles = new OracleRepository(db);
  const dexRepo = new DexReadModel(db);
  const out = new Map<string, NativeUsd | null>();
  for (const date of days) {
    const t = pricingInstant(date, asOf);
    let feed: Parameters<typeof nativeUsdAt>[1] = null;
    for (const f of refs.feeds) {
      const rounds = await oracles.rounds(f.chain, f.address, t - DAY, t);
      const decimals = (await oracles.feedStates(f.chain))[f.address]?.decimals ?? null;
      if (rounds.length && decimals !== null) {
        feed = { rounds, decimals, heartbeatSeconds: f.heartbeatSeconds, ref: f.address };
        break;
      }
    }
    const fromHour = Math.floor((t - DEX_PRICE_MAX_AGE) / HOUR) * HOUR - HOUR;
    const dex: TokenPriceFact[] = [];
    for (const token of refs.tokens) {
      const prices = await dexRepo.prices(token.chain, fromHour, t);
      dex.push(...prices.filter((p) => p.token === token.address));
      if (dex.length) break;
    }
    out.set(date, nativeUsdAt(t, feed, dex));
  }
  return out;
}
