import type { Kysely } from 'kysely';
import { toFloat } from '../../core/decimal.js';
import type { FeedAnswer } from '../../core/price-policy.js';
import { storedBlockTimestamp } from '../../jobs/evm/tables.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import type { Database } from '../../store/schema.js';
import { DexReadModel } from '../dex/public.js';
import type { IngestStart } from '../kit/ingest-start.js';
import { type DexPricePoint, type OracleFeedInput, type OracleInput, ROUNDS_HISTORY_SECONDS } from './compute.js';
import type { OracleFeedState, OracleRoundFact } from './facts.js';
import type { OracleTables } from './tables.js';
import type { OracleFeedTarget } from './targets.js';

/** The EVM ingest engine's checkpoint of a chain's rounds (the sink's key). */
export const roundsKey = (chain: string) => `oracles:${chain}`;
/** What ingestion last learned of a chain's feeds: `Record<feed, OracleFeedState>`. */
export const feedsKey = (chain: string) => `oracles:${chain}:feeds`;
/** The kit's `ingestStart` of a chain. */
export const startKey = (chain: string) => `oracles:${chain}:start`;

export type OracleFeedStates = Record<string, OracleFeedState>;

/**
 * A saved feed state. Checkpoints written before aggregator periods existed hold `{ aggregator, decimals }` of the
 * feeds read: one period from the start, resolved at an unknown block, covered since the ingestion start.
 */
function feedState(saved: Partial<OracleFeedState>): OracleFeedState {
  const aggregator = saved.aggregator ?? null;
  return {
    aggregator,
    decimals: saved.decimals ?? null,
    periods: saved.periods ?? (aggregator === null ? [] : [{ aggregator, fromBlock: 0 }]),
    resolvedAt: saved.resolvedAt ?? null,
    coveredFrom: saved.coveredFrom ?? null,
    unresolved: saved.unresolved ?? null,
  };
}

type RoundRow = OracleTables['oracle_rounds'];

function toFact(r: RoundRow): OracleRoundFact {
  return {
    chain: r.chain,
    feed: r.feed,
    aggregator: r.aggregator,
    roundId: BigInt(r.round_id),
    answer: BigInt(r.answer),
    updatedAt: Number(r.updated_at),
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
  };
}

/** Reads the oracle area's facts; rows become typed facts (big integers back to bigint) here only. */
export class OracleRepository {
  private readonly db: Kysely<Database & OracleTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<OracleTables>();
  }

  /**
   * A feed's rounds with `from < updatedAt ≤ to` in chain order, preceded by the newest round at or before `from`
   * (the predecessor of the first one: its interval and change need it).
   */
  async rounds(chain: string, feed: string, from: number, to: number): Promise<OracleRoundFact[]> {
    const before = await this.newestAtOrBefore(chain, feed, from).selectAll().execute();
    const inside = await this.db
      .selectFrom('oracle_rounds')
      .selectAll()
      .where('chain', '=', chain)
      .where('feed', '=', feed)
      .where('updated_at', '>', from)
      .where('updated_at', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return [...before, ...inside].map(toFact);
  }

  /** The query of a feed's newest round with `updatedAt ≤ at` in chain order (what `rounds` and `pruneRounds` keep). */
  private newestAtOrBefore(chain: string, feed: string, at: number) {
    return this.db
      .selectFrom('oracle_rounds')
      .where('chain', '=', chain)
      .where('feed', '=', feed)
      .where('updated_at', '<=', at)
      .orderBy('block_number', 'desc')
      .orderBy('log_index', 'desc')
      .limit(1);
  }

  /**
   * Deletes a chain's rounds with `updatedAt < before`, except each feed's newest round at or before `before` and
   * any after it in chain order: `rounds` of a window starting at or after `before` reads the same. Returns how many
   * went.
   */
  async pruneRounds(chain: string, before: number): Promise<number> {
    const feeds = await this.db
      .selectFrom('oracle_rounds')
      .select('feed')
      .distinct()
      .where('chain', '=', chain)
      .where('updated_at', '<', before)
      .execute();
    let removed = 0;
    for (const { feed } of feeds) {
      const kept = await this.newestAtOrBefore(chain, feed, before)
        .select(['block_number', 'log_index'])
        .executeTakeFirst();
      if (!kept) continue;
      const res = await this.db
        .deleteFrom('oracle_rounds')
        .where('chain', '=', chain)
        .where('feed', '=', feed)
        .where('updated_at', '<', before)
        .where((eb) =>
          eb.or([
            eb('block_number', '<', kept.block_number),
            eb.and([eb('block_number', '=', kept.block_number), eb('log_index', '<', kept.log_index)]),
          ]),
        )
        .executeTakeFirst();
      removed += Number(res.numDeletedRows);
    }
    return removed;
  }

  /** What ingestion last learned of a chain's feeds, by feed address. */
  async feedStates(chain: string): Promise<OracleFeedStates> {
    const saved =
      (await readCheckpoint<Record<string, Partial<OracleFeedState>>>(this.platform, feedsKey(chain))) ?? {};
    return Object.fromEntries(Object.entries(saved).map(([feed, state]) => [feed, feedState(state)]));
  }

  async saveFeedStates(chain: string, states: OracleFeedStates, now: number): Promise<void> {
    await writeCheckpoint(this.platform, feedsKey(chain), states, now);
  }

  /** Where ingestion of the chain began, once chosen. */
  start(chain: string): Promise<IngestStart | undefined> {
    return readCheckpoint<IngestStart>(this.platform, startKey(chain));
  }

  /** The last block whose rounds are committed, with its time when an ingest pass stored its header. */
  async ingested(chain: string): Promise<{ block: number; timestamp: number | undefined } | undefined> {
    const checkpoint = await readCheckpoint<{ block: number }>(this.platform, roundsKey(chain));
    if (!checkpoint) return undefined;
    return { block: checkpoint.block, timestamp: await storedBlockTimestamp(this.platform, chain, checkpoint.block) };
  }

  /**
   * Everything the computation reads, from the store: per feed what ingestion learned of it and its rounds up to
   * `asOf` (ROUNDS_HISTORY_SECONDS back, with the predecessor), and the DEX area's hourly USD prices of the feeds'
   * base tokens over the same time.
   */
  async computeInput(targets: readonly OracleFeedTarget[], asOf: number): Promise<OracleInput> {
    const dex = new DexReadModel(this.platform);
    const feeds: OracleFeedInput[] = [];
    const prices: DexPricePoint[] = [];
    const fromHour = Math.floor((asOf - ROUNDS_HISTORY_SECONDS) / 3600) * 3600;
    for (const chain of new Set(targets.map((f) => f.chain))) {
      const states = await this.feedStates(chain);
      const start = await this.start(chain);
      const chainFeeds = targets.filter((f) => f.chain === chain);
      for (const f of chainFeeds) {
        const state = states[f.address];
        feeds.push({
          chain,
          pair: f.pair,
          address: f.address,
          heartbeatSeconds: f.heartbeatSeconds,
          deviationThresholdPct: f.deviationThresholdPct,
          baseToken: f.baseToken,
          pricesCollateral: f.pricesCollateral ?? [],
          state: state ?? null,
          rounds: await this.rounds(chain, f.address, asOf - ROUNDS_HISTORY_SECONDS, asOf),
          // A feed never resolved was never read: nothing of it is known.
          coverageFrom: state?.periods.length ? (state.coveredFrom ?? start?.timestamp ?? null) : null,
        });
      }
      const bases = new Set(chainFeeds.map((f) => f.baseToken).filter((t) => t !== null));
      for (const p of await dex.prices(chain, fromHour, asOf)) {
        if (bases.has(p.token))
          prices.push({
            token: p.token,
            hour: p.hour,
            priceUsd: p.priceUsd,
            confidence: p.confidence,
            source: p.source,
          });
      }
    }
    return { asOf, feeds, prices };
  }
}

/**
 * The USD feed answers the price policy takes for the feeds' base tokens (this area's rounds of its feeds,
 * `from < updatedAt ≤ to` with the predecessor of the first): one feed answer per token and instant for every area
 * (the stablecoin area's prices, the lending area's liquidations; core/price-policy `feedCandidateAt`).
 */
export async function feedAnswers(
  platform: Kysely<Database>,
  feeds: readonly OracleFeedTarget[],
  from: number,
  to: number,
): Promise<FeedAnswer[]> {
  const repo = new OracleRepository(platform);
  const out: FeedAnswer[] = [];
  const states = new Map<string, OracleFeedStates>();
  for (const f of feeds) {
    if (!f.baseToken || !f.pair.endsWith('-USD')) continue;
    if (!states.has(f.chain)) states.set(f.chain, await repo.feedStates(f.chain));
    const decimals = states.get(f.chain)?.[f.address]?.decimals;
    if (decimals == null) continue;
    for (const r of await repo.rounds(f.chain, f.address, from, to)) {
      if (r.answer <= 0n) continue;
      out.push({
        token: f.baseToken,
        priceUsd: toFloat(r.answer, decimals),
        updatedAt: r.updatedAt,
        heartbeat: f.heartbeatSeconds,
        ref: f.address,
      });
    }
  }
  return out;
}
