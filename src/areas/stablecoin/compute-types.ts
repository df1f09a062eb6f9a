/** The stablecoin computation's input and output shapes (compute.ts): what the jobs resolve and what they publish. */
import type { FeedAnswer } from '../../core/price-policy.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import type { StableDesign, StableEventFact, StableSnapshot } from './facts.js';
import type { CollateralsPayloadEntry, StableScoreRecordEntry, WeeklyRecordEntry } from './schema.js';

/** What the computation knows of a protocol (the target, as the jobs resolved it). */
export interface StablecoinRef {
  readonly chain: string;
  readonly protocol: string;
  readonly name: string;
  readonly design: StableDesign;
  readonly symbol: string;
  /** USD stablecoins the peg and exit depth are measured against (lowercase addresses). */
  readonly quotes: readonly { readonly symbol: string; readonly address: string }[];
}

export interface StablecoinProtocolInput {
  readonly target: StablecoinRef;
  /** Snapshots of the history window, oldest first. */
  readonly snapshots: readonly StableSnapshot[];
  /** Flow events (liquidations, redemptions, pokes, prices) of the history window, in chain order. */
  readonly events: readonly StableEventFact[];
  /** Every stored Transfer of the stablecoin up to the newest snapshot, in chain order (holders' replay). */
  readonly transfers: readonly StableEventFact[];
}

export interface StablecoinDexInput {
  readonly pools: readonly PoolFact[];
  readonly tokens: readonly TokenFact[];
  readonly snapshots: readonly PoolSnapshotFact[];
  readonly swaps: readonly SwapFact[];
  readonly syncs: readonly SyncFact[];
  readonly prices: readonly TokenPriceFact[];
}

export interface StablecoinInput {
  readonly protocols: readonly StablecoinProtocolInput[];
  readonly dex: StablecoinDexInput;
  /**
   * The chains' USD feed answers of the history window (the oracle area's rounds, with the predecessor of the
   * first), by the token each prices: the feed candidates of the one price policy (core/price-policy).
   */
  readonly feeds?: readonly FeedAnswer[];
}

export interface Dated<T> {
  readonly asOf: number;
  readonly data: T;
}

export interface StablecoinOutput {
  readonly weekly: ReadonlyMap<string, Dated<WeeklyRecordEntry[]>>;
  readonly collaterals: ReadonlyMap<string, Dated<CollateralsPayloadEntry>>;
  /** Key `chain/protocol`. */
  readonly scores: ReadonlyMap<string, Dated<StableScoreRecordEntry[]>>;
  readonly allMarkets: Dated<StableScoreRecordEntry[]> | undefined;
}
