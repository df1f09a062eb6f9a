import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from './facts.js';
import { DexRepository } from './repo.js';

const HOUR = 3600;

/** The DEX facts of one chain over a window: what other areas rebuild pool states and prices from. */
export interface DexFactsWindow {
  readonly pools: PoolFact[];
  readonly tokens: TokenFact[];
  /** The pools' state at one snapshot block (see `DexWindowOptions.snapshot`); none before the first. */
  readonly snapshots: PoolSnapshotFact[];
  readonly swaps: SwapFact[];
  readonly syncs: SyncFact[];
  /** Hourly USD prices from `pricesFrom` (an hour) to `until`. */
  readonly prices: TokenPriceFact[];
}

export interface DexWindowOptions {
  /** Swaps and syncs from this instant (inclusive) to `until`. */
  readonly from: number;
  readonly until: number;
  /** Prices from this hour (default the hour of `from`). */
  readonly pricesFrom?: number;
  /**
   * Which snapshot: `head` the chain's newest (default); `{ atOrBefore: t }` the newest if it is not after `t`
   * (else none); `{ block }` that block's.
   */
  readonly snapshot?: 'head' | { readonly atOrBefore: number } | { readonly block: number };
}

/**
 * The DEX area's read model, what other areas read of it (`public.ts`): its facts over a window, its hourly USD
 * prices, a token's USD price at an instant, its snapshot heads, its tokens and swaps alone. It writes nothing; the DEX repository and its
 * writers stay the area's own.
 */
export class DexReadModel {
  private readonly repo: DexRepository;

  constructor(db: Kysely<Database>) {
    this.repo = new DexRepository(db);
  }

  /** The chain's newest snapshot block and its time, if any. */
  head(chain: string): Promise<{ blockNumber: number; timestamp: number } | undefined> {
    return this.repo.latestSnapshotBlock(chain);
  }

  pools(chain: string): Promise<PoolFact[]> {
    return this.repo.pools(chain);
  }

  /** The chain's tokens (symbol, decimals) of its pools. */
  tokens(chain: string): Promise<TokenFact[]> {
    return this.repo.tokens(chain);
  }

  /** The chain's swaps with timestamp in [from, until] (what a recount of volume reads without the rest). */
  swaps(chain: string, from: number, until: number): Promise<SwapFact[]> {
    return this.repo.swaps(chain, from, until);
  }

  /** The pools' states at a snapshot block (none when it is no longer stored). */
  snapshots(chain: string, blockNumber: number): Promise<PoolSnapshotFact[]> {
    return this.repo.snapshots(chain, blockNumber);
  }

  /** Hourly USD prices of the chain's tokens, hours `fromHour` to `toHour`. */
  prices(chain: string, fromHour: number, toHour: number): Promise<TokenPriceFact[]> {
    return this.repo.prices(chain, fromHour, toHour);
  }

  /** The chain's facts over a window (the one loader of the areas that read the DEX's facts). */
  async factsWindow(chain: string, options: DexWindowOptions): Promise<DexFactsWindow> {
    const pricesFrom = options.pricesFrom ?? Math.floor(options.from / HOUR) * HOUR;
    const snapshotBlock = async (): Promise<number | undefined> => {
      const which = options.snapshot ?? 'head';
      if (typeof which === 'object' && 'block' in which) return which.block;
      const head = await this.repo.latestSnapshotBlock(chain);
      if (!head) return undefined;
      return which === 'head' || head.timestamp <= which.atOrBefore ? head.blockNumber : undefined;
    };
    const [pools, tokens, snapshots, swaps, syncs, prices] = await Promise.all([
      this.repo.pools(chain),
      this.repo.tokens(chain),
      snapshotBlock().then((block) => (block === undefined ? [] : this.repo.snapshots(chain, block))),
      this.repo.swaps(chain, options.from, options.until),
      this.repo.syncs(chain, options.from, options.until),
      this.repo.prices(chain, pricesFrom, options.until),
    ]);
    return { pools, tokens, snapshots, swaps, syncs, prices };
  }

  /**
   * Each token's USD price at an instant: its newest hourly price within `maxAgeSeconds` before the hour of `t`
   * (tokens without one are absent).
   */
  async usdPricesAt(chain: string, t: number, maxAgeSeconds: number): Promise<Map<string, number>> {
    const hour = Math.floor(t / HOUR) * HOUR;
    const rows = await this.repo.prices(chain, hour - maxAgeSeconds, hour);
    const out = new Map<string, number>();
    for (const p of [...rows].sort((a, b) => a.hour - b.hour)) out.set(p.token, p.priceUsd);
    return out;
  }
}
