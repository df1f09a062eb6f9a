/**
 * The seven days of a token's history (pure): which snapshot stands for each UTC day, and the computation's input
 * for it, from the ledger, the retained transfers and the snapshots.
 *
 * - Day 0 (the running day, `partial`) is read at the newest snapshot; each past day at its last snapshot within
 *   `DAY_END_TOLERANCE` before the day's end (the day's last block, or a head snapshot in its last hour). Every figure
 *   of a record holds at that one block (`block_number`), and `as_of` is that block's time: the 24-hour windows are
 *   the 24 hours to it. A day without such a snapshot is a gap (`not_deployed` before the token's first block,
 *   `no_data` after it), never a guess.
 * - Balances at a record's block: the ledger's balances less every transfer after that block (ledger.ts), taken
 *   newest day first so each day costs the transfers between two snapshots.
 * - Labels: the address book's (the registry's on mainnet) and the DEX pools pairing the token (targets.ts), grouped
 *   into the breakdown's holder categories (`HOLDER_CATEGORY`); the vesting and distributor contracts' readings come
 *   from the snapshot. Declared allocations: the book's declaration (allocations.ts `declaredAllocations`).
 */

import type { GapReason } from '../../core/gaps.js';
import { DAY, dailyHistoryInstants, isoSeconds, startOfUtcDay } from '../../core/time.js';
import { declaredAllocations, type VestingReading } from './allocations.js';
import type { TransferFact as DayTransfer, ExchangeInfo, MarketReading, Ticker, TokenomicsInput } from './compute.js';
import type { DexVolume } from './dex-volume.js';
import type { ContractReading, TokenSnapshotFact, TransferFact } from './facts.js';
import { balanceDeltas, withDeltas } from './ledger.js';
import type { HolderCategory, TokenLabelEntry } from './schema.js';
import { DAY_END_TOLERANCE, supply30d } from './snapshots.js';
import type { LabelCategory, TokenTarget } from './targets.js';

export { DAY_END_TOLERANCE } from './snapshots.js';

/** The breakdown's holder category of each label category. */
export const HOLDER_CATEGORY: Readonly<Record<LabelCategory, HolderCategory>> = {
  team: 'team',
  advisors: 'team',
  investors: 'investors',
  treasury: 'treasury',
  community: 'community',
  exchange: 'exchanges',
  dex_pool: 'contracts',
  bridge: 'contracts',
  burn: 'other',
};

/**
 * The dust threshold, raw units: a holder holds strictly more than 10⁻⁶ token (one raw unit for a token of 6 decimals
 * or fewer). Stated in every record as `dust_threshold`.
 */
export const dustThresholdRaw = (decimals: number): bigint => (decimals > 6 ? 10n ** BigInt(decimals - 6) : 0n);

export interface MarketDay {
  readonly market: MarketReading | null;
  readonly marketGapReason?: GapReason;
  readonly tickers: readonly Ticker[] | null;
  readonly tickersGapReason?: GapReason;
  readonly exchanges: readonly ExchangeInfo[];
}

export interface DaysArgs {
  readonly target: TokenTarget;
  readonly coingeckoId: string | null;
  /** The ledger's balances and its block. */
  readonly ledger: { readonly block: number; readonly balances: ReadonlyMap<string, bigint> };
  /** The token's first block's time: before it, a day is `not_deployed`. */
  readonly startTimestamp: number;
  /** Every retained transfer after the oldest record's block (and its 24 hours), in chain order. */
  readonly transfers: readonly TransferFact[];
  /** The snapshots, any order: the week's, and the day-ends 30 days before its days (`supply30d`). */
  readonly snapshots: readonly TokenSnapshotFact[];
  /** What the market-data source said for a day's instant (null: no source configured). */
  readonly market: (asOf: number) => MarketDay;
  /** The token's on-chain DEX volume over the 24 hours to a record's instant, at or below its block (dex-volume.ts). */
  readonly dexVolume: (at: { readonly asOf: number; readonly blockNumber: number }) => DexVolume;
  /** Whether the caller holds the record of a closed day with this key (record-cache.ts); absent: none. */
  readonly cached?: (key: string) => boolean;
}

/**
 * What a closed day's record depends on beyond the chain below its block (its balances and 24-hour transfers): the
 * snapshot, the 30-day base, what the market source said, the on-chain DEX volume (it moves when the DEX area's facts
 * reach the day), and the labels and declared allocations (a DEX pool discovered later becomes a label).
 */
export function closedDayKey(
  snap: TokenSnapshotFact,
  s30: ReturnType<typeof supply30d>,
  market: MarketDay,
  dex: DexVolume,
  labelsKey: string,
): string {
  const base = 'value' in s30 ? s30.value.blockNumber : s30.reason;
  const said = JSON.stringify([market, dex]);
  return `${snap.blockNumber}:${snap.timestamp}:${snap.totalSupply}:${snap.replayedSupply}:${base}:${said}:${labelsKey}`;
}

export type TokenDay =
  /** `key`: a closed day's (`closedDayKey`), under which the caller may keep its record. */
  | { readonly kind: 'record'; readonly input: TokenomicsInput; readonly key?: string }
  /** A closed day whose record the caller said it has (`DaysArgs.cached`). */
  | { readonly kind: 'cached'; readonly key: string }
  | {
      readonly kind: 'gap';
      readonly day: string;
      readonly partial: boolean;
      readonly asOf: number;
      readonly reason: GapReason;
    };

/** The snapshot standing for each of the 7 days (newest first), or undefined; empty without any snapshot. */
export function daySnapshots(snapshots: readonly TokenSnapshotFact[]): { end: number; snap?: TokenSnapshotFact }[] {
  const sorted = [...snapshots].sort((a, b) => b.blockNumber - a.blockNumber);
  const newest = sorted[0];
  if (!newest) return [];
  return dailyHistoryInstants(newest.timestamp, 7).map((end, d) => {
    if (d === 0) return { end, snap: newest };
    const snap = sorted.find((s) => s.timestamp <= end && s.timestamp > end - DAY_END_TOLERANCE);
    return snap ? { end, snap } : { end };
  });
}

/** The 7 days of a token, newest first (empty without any snapshot). */
export function tokenDays(args: DaysArgs): TokenDay[] {
  const { target } = args;
  const days = daySnapshots(args.snapshots);
  const labels = labelEntries(target);
  const burnAddresses = target.labels.filter((l) => l.category === 'burn').map((l) => l.address);
  const allocations = declaredAllocations(target.declaration, target.decimals);
  const labelsKey = JSON.stringify([labels, target.declaration ?? null], (_, v) =>
    typeof v === 'bigint' ? v.toString() : v,
  );
  let balances: ReadonlyMap<string, bigint> = args.ledger.balances;
  let at = args.ledger.block;
  const out: TokenDay[] = [];
  for (const [d, { end, snap }] of days.entries()) {
    const day = isoSeconds(startOfUtcDay(end)).slice(0, 10);
    if (!snap) {
      out.push({
        kind: 'gap',
        day,
        partial: d === 0,
        asOf: end,
        reason: end < args.startTimestamp ? 'not_deployed' : 'no_data',
      });
      continue;
    }
    const asOf = snap.timestamp;
    const s30 = supply30d(args.snapshots, end, snap, burnAddresses);
    const market = args.market(asOf);
    const dex = args.dexVolume({ asOf, blockNumber: snap.blockNumber });
    // A closed day the caller holds the record of (the same snapshot, 30-day base, market and DEX volume): no balances
    // for it.
    const key = d === 0 ? undefined : closedDayKey(snap, s30, market, dex, labelsKey);
    if (key !== undefined && args.cached?.(key)) {
      out.push({ kind: 'cached', key });
      continue;
    }
    // Newest day first: take away the transfers between the previous record's block and this one's.
    if (snap.blockNumber < at) {
      const moved = args.transfers.filter((t) => t.blockNumber > snap.blockNumber && t.blockNumber <= at);
      balances = withDeltas(balances, balanceDeltas(moved), -1);
      at = snap.blockNumber;
    }
    const transfers24h: DayTransfer[] = args.transfers
      .filter((t) => t.blockNumber <= snap.blockNumber && t.timestamp > asOf - DAY && t.timestamp <= asOf)
      .map((t) => ({ from: t.from, to: t.to, value: t.value, block: t.blockNumber, time: t.timestamp }));
    out.push({
      kind: 'record',
      ...(key !== undefined ? { key } : {}),
      input: {
        token: {
          address: target.address,
          chain: target.chain,
          coingeckoId: args.coingeckoId,
          decimals: target.decimals,
        },
        blockNumber: snap.blockNumber,
        asOf,
        day,
        partial: d === 0,
        dustThresholdRaw: dustThresholdRaw(target.decimals),
        totalSupplyRaw: snap.totalSupply,
        balances: [...balances].map(([address, balance]) => ({ address, balance })),
        replayTotalRaw: snap.replayedSupply,
        transfers24h,
        labels,
        burnAddresses,
        vesting: snap.contracts.flatMap((c) => vestingReading(c) ?? []),
        allocations,
        supply30d: 'value' in s30 ? s30.value : null,
        ...('reason' in s30 ? { supply30dGapReason: s30.reason } : {}),
        market: market.market,
        ...(market.marketGapReason ? { marketGapReason: market.marketGapReason } : {}),
        tickers: market.tickers,
        ...(market.tickersGapReason ? { tickersGapReason: market.tickersGapReason } : {}),
        exchanges: market.exchanges,
        ...dexVolumeInput(dex),
      },
    });
  }
  return out;
}

const dexVolumeInput = (v: DexVolume) =>
  v.value === null ? { dexVolumeOnchainUsd: null, dexVolumeGapReason: v.reason } : { dexVolumeOnchainUsd: v.value };

/** The target's labels as the breakdown names them (vesting and distributor contracts included). */
export function labelEntries(target: TokenTarget): TokenLabelEntry[] {
  return target.labels.map((l) => ({
    address: l.address,
    category: HOLDER_CATEGORY[l.category],
    label: l.label,
    source: l.source,
  }));
}

const big = (v: string | undefined): bigint | undefined => (v === undefined ? undefined : BigInt(v));
const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

/**
 * A labelled contract's reading as the allocation maths take it, or undefined for a kind that vests nothing or a
 * reading whose views did not answer (a contract that is not what its label says: it then holds its balance as any
 * labelled address does, and is not treated as a vesting contract).
 */
export function vestingReading(c: ContractReading): VestingReading | undefined {
  const base = { address: c.address, category: c.category, label: c.label, held: BigInt(c.held) };
  const v = c.views;
  switch (c.kind) {
    case 'treasury_vester': {
      const amount = big(v.vestingAmount);
      const begin = num(v.vestingBegin);
      const cliff = num(v.vestingCliff);
      const end = num(v.vestingEnd);
      const last = num(v.lastUpdate);
      if (amount === undefined || begin === undefined || cliff === undefined || end === undefined) return undefined;
      if (last === undefined) return undefined;
      const released = amount > base.held ? amount - base.held : 0n;
      return {
        ...base,
        released,
        kind: 'treasury_vester',
        schedule: {
          vestingAmount: amount,
          vestingBegin: begin,
          vestingCliff: cliff,
          vestingEnd: end,
          lastUpdate: last,
        },
      };
    }
    case 'vesting_wallet': {
      const start = num(v.start);
      const duration = num(v.duration);
      const released = big(v.released);
      if (start === undefined || duration === undefined || released === undefined) return undefined;
      return { ...base, released, kind: 'vesting_wallet', schedule: { start, duration } };
    }
    case 'token_timelock': {
      const releaseTime = num(v.releaseTime);
      if (releaseTime === undefined) return undefined;
      return { ...base, released: 0n, kind: 'token_timelock', schedule: { releaseTime } };
    }
    case 'merkle_distributor':
      return v.token === undefined ? undefined : { ...base, released: 0n, kind: 'merkle_distributor', schedule: null };
    default:
      return undefined;
  }
}
