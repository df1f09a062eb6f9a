import type { Kysely } from 'kysely';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import { inChunks } from '../../store/chunks.js';
import { DatasetRepository } from '../../store/datasets.js';
import type { Database } from '../../store/schema.js';
import { DEX_COMPUTATION, DexReadModel } from '../dex/public.js';
import {
  LENDING_COMPUTATION,
  type LendingMarketTarget,
  LendingRepository,
  type MarketSnapshot,
} from '../lending/public.js';
import { historyInstants, type LiquidStakingInput, marketKey, rateKey, SWAP_HISTORY } from './compute.js';
import type { LiquidStakingTables } from './tables.js';
import type { LiquidStakingTarget, LiquidStakingToken } from './targets.js';

/** The checkpoint of the rates ingested last: the upstream they were read for. */
const RATES_KEY = 'liquid-staking:rates';

/** Rates no longer needed are kept this long after their read: two days, far beyond any computation's run. */
const RETAIN_SECONDS = 2 * 86_400;

/** The facts a computation runs on (see `currentPin`). */
export interface Pin {
  /** `[chain, DEX snapshot block]`. */
  readonly heads: readonly (readonly [string, number])[];
  /** `[market pool, lending snapshot block]` of the markets with a snapshot. */
  readonly lending: readonly (readonly [string, number])[];
  readonly dex: number | null;
  readonly lendingVersion: number | null;
}

/** The computation's input without the exchange rates: what the DEX and lending areas stored. */
export type FactsInput = Omit<LiquidStakingInput, 'exchangeRates'>;

/** Reads the DEX and lending facts the area computes from (through their public faces) and its own rates. */
export class LiquidStakingRepository {
  private readonly db: Kysely<Database & LiquidStakingTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<LiquidStakingTables>();
  }

  /**
   * The facts the area computes from, pinned: each chain's newest DEX snapshot block and each market's newest
   * lending snapshot block, with the DEX and lending publications' versions (what changes when they move).
   * `liquid-staking.ingest` reads the rates for a pin and records it; the computation then reads the facts of that
   * same pin, so a chain that moves every few seconds never leaves the computation without its rates.
   */
  async currentPin(chains: readonly string[], markets: readonly LendingMarketTarget[]): Promise<Pin | undefined> {
    const heads = await this.heads(chains);
    if (!heads.length) return undefined;
    const lending = new LendingRepository(this.platform);
    const publications = new DatasetRepository(this.platform);
    return {
      heads: heads.map((h) => [h.chain, h.blockNumber]),
      lending: await lending.latestSnapshotBlocks(markets),
      dex: (await publications.latestPublication(DEX_COMPUTATION))?.version ?? null,
      lendingVersion: (await publications.latestPublication(LENDING_COMPUTATION))?.version ?? null,
    };
  }

  /** The pin whose rates were ingested last (the computation runs on it), or undefined before the first. */
  ratesIngestedFor(): Promise<Pin | undefined> {
    return readCheckpoint<Pin>(this.platform, RATES_KEY);
  }

  async recordRatesIngested(pin: Pin, at: number): Promise<void> {
    await writeCheckpoint(this.platform, RATES_KEY, pin, at);
  }

  /** The DEX snapshot heads of the chains (the computation's `as_of` is the oldest). */
  async heads(chains: readonly string[]): Promise<{ chain: string; blockNumber: number; timestamp: number }[]> {
    const dex = new DexReadModel(this.platform);
    const heads = [];
    for (const chain of chains) {
      const head = await dex.head(chain);
      if (head) heads.push({ chain, ...head });
    }
    return heads;
  }

  /**
   * Everything but the rates, at a pin (the oldest chain's DEX snapshot of the pin is `as_of`): the tokens with
   * the DEX pools that hold them, those pools' facts, and each lending market's snapshot of the pin and its
   * snapshots at the history instants. Undefined when the pin's snapshots are no longer stored (a newer pin has
   * replaced them).
   */
  async factsInput(
    lsts: readonly LiquidStakingTarget[],
    markets: readonly LendingMarketTarget[],
    exchangeNames: ReadonlyMap<string, string>,
    pin: Pin,
  ): Promise<FactsInput | undefined> {
    const dex = new DexReadModel(this.platform);
    const lending = new LendingRepository(this.platform);
    const heads: { chain: string; blockNumber: number; timestamp: number }[] = [];
    for (const [chain, block] of pin.heads) {
      const timestamp = (await dex.snapshots(chain, block))[0]?.timestamp;
      if (timestamp === undefined) return undefined;
      heads.push({ chain, blockNumber: block, timestamp });
    }
    if (!heads.length) return undefined;
    const asOf = heads.reduce((a, b) => (b.timestamp < a.timestamp ? b : a));
    const instants = historyInstants(asOf.timestamp);
    const lendingSnapshots = new Map<string, (MarketSnapshot | undefined)[]>();
    for (const m of markets) {
      const block = pin.lending.find(([pool]) => pool === m.pool)?.[1];
      const latest = block === undefined ? undefined : await lending.snapshotAt(m.chain, m.pool, block);
      if (block !== undefined && !latest) return undefined;
      const earlier = await lending.snapshotsAtOrBefore(m.chain, m.pool, instants.slice(1));
      lendingSnapshots.set(marketKey(m), [latest, ...earlier]);
    }
    // The DEX pools that hold each token, as the DEX area found them from its factories.
    const tokens: LiquidStakingToken[] = [];
    for (const l of lsts) {
      const pools = (await dex.pools(l.chain)).filter((p) => p.token0 === l.token || p.token1 === l.token);
      tokens.push({
        ...l,
        dexPools: pools.map((p) => ({ protocol: p.protocol, version: p.version, pool: p.address })),
      });
    }
    const from = asOf.timestamp - SWAP_HISTORY;
    const fromHour = Math.floor(from / 3600) * 3600 - 3600;
    const lstPools = new Set(tokens.flatMap((l) => l.dexPools.map((p) => `${l.chain}/${p.pool}`)));
    const own = (x: { chain: string; pool: string }) => lstPools.has(`${x.chain}/${x.pool}`);
    const input = {
      asOf: { blockNumber: asOf.blockNumber, timestamp: asOf.timestamp },
      liquidStaking: tokens,
      lending: markets,
      exchangeNames,
      pools: [] as FactsInput['pools'][number][],
      tokens: [] as FactsInput['tokens'][number][],
      snapshots: [] as FactsInput['snapshots'][number][],
      swaps: [] as FactsInput['swaps'][number][],
      syncs: [] as FactsInput['syncs'][number][],
      prices: [] as FactsInput['prices'][number][],
      lendingSnapshots,
    };
    for (const head of heads) {
      const facts = await dex.factsWindow(head.chain, {
        from,
        until: asOf.timestamp,
        pricesFrom: fromHour,
        snapshot: { block: head.blockNumber },
      });
      input.pools.push(...facts.pools.filter((p) => lstPools.has(`${p.chain}/${p.address}`)));
      input.tokens.push(...facts.tokens);
      input.snapshots.push(...facts.snapshots.filter(own));
      input.swaps.push(...facts.swaps.filter(own));
      input.syncs.push(...facts.syncs.filter(own));
      input.prices.push(...facts.prices);
    }
    return input;
  }

  /** Stored rates of a token at these blocks: `rateKey` → rate, or null where the node had no state. */
  async rates(chain: string, token: string, blocks: readonly number[]): Promise<Map<number, bigint | null>> {
    const out = new Map<number, bigint | null>();
    for (let i = 0; i < blocks.length; i += 500) {
      const rows = await this.db
        .selectFrom('lst_exchange_rates')
        .select(['block_number', 'rate'])
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('block_number', 'in', blocks.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(Number(r.block_number), r.rate === null ? null : BigInt(r.rate));
    }
    return out;
  }

  /** The rates of every (token, block) the facts need, keyed as the computation reads them; unknown ones absent. */
  async exchangeRates(needed: ReadonlyMap<string, ReadonlySet<number>>): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    for (const [key, blocks] of needed) {
      const [chain, token] = key.split('/') as [string, string];
      for (const [block, rate] of await this.rates(chain, token, [...blocks])) {
        if (rate !== null) out.set(rateKey(chain, token, block), rate);
      }
    }
    return out;
  }

  /**
   * Writes (or rewrites) rates read at `at`, and deletes the token's rates that the facts no longer need and that
   * were read more than `RETAIN_SECONDS` ago (so a computation running meanwhile on older facts keeps its rates).
   */
  async saveRates(
    chain: string,
    token: string,
    read: ReadonlyMap<number, bigint | null>,
    keep: ReadonlySet<number>,
    at: number,
  ): Promise<void> {
    await this.platform.transaction().execute(async (platformTrx) => {
      const trx = platformTrx.withTables<LiquidStakingTables>();
      const rows = [...read].map(([block, rate]) => ({
        chain,
        token,
        block_number: block,
        rate: rate === null ? null : rate.toString(),
        read_at: at,
      }));
      await inChunks(
        rows,
        (chunk) =>
          trx
            .insertInto('lst_exchange_rates')
            .values(chunk)
            .onConflict((oc) =>
              oc
                .columns(['chain', 'token', 'block_number'])
                .doUpdateSet((eb) => ({ rate: eb.ref('excluded.rate'), read_at: eb.ref('excluded.read_at') })),
            )
            .execute(),
        500,
      );
      const stored = await trx
        .selectFrom('lst_exchange_rates')
        .select('block_number')
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('read_at', '<', at - RETAIN_SECONDS)
        .execute();
      const stale = stored.map((r) => Number(r.block_number)).filter((b) => !keep.has(b));
      await inChunks(
        stale,
        (chunk) =>
          trx
            .deleteFrom('lst_exchange_rates')
            .where('chain', '=', chain)
            .where('token', '=', token)
            .where('block_number', 'in', chunk)
            .execute(),
        500,
      );
    });
  }
}
