import { DAY, isoSeconds } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { dexPriceBlocks, dexTargets } from '../dex/public.js';
import { computeJob, DocumentSet, eachTarget, type NamedDocument, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { snapshotDays } from '../kit/snapshot-schedule.js';
import { OracleRepository, oracleTargets } from '../oracles/public.js';
import { computeLending, type LendingOutput } from './compute.js';
import { LendingIngest } from './ingest.js';
import { LendingRepository } from './repo.js';
import { lendingPaths } from './routes.js';
import { LENDING_METHODOLOGY } from './score.js';
import { lendingTargets } from './targets.js';

/**
 * The lending area's jobs:
 * - `lending.ingest`: the markets' events (Aave Pool and aToken transfers, Morpho singleton) → `lending_events`;
 * - `lending.snapshot`: each market's state at the ingested head (every 5 minutes of chain time) and at the end of
 *   each of the last 6 UTC days when missing (read from the node's history) → `lending_snapshots`;
 * - `lending.compute`: snapshots + liquidations + DEX prices and depth + the oracle area's USD feed answers (each
 *   liquidation's price at its block time) → the 7 lending paths, published at once.
 */
export const LENDING_COMPUTATION = 'lending.compute';
/** Where ingestion starts for a market without a start block (production forks the registry dates not). */
const LOOKBACK_SECONDS = 30 * DAY;

export function lendingJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = lendingTargets(env);
  if (!evm || !targets.length) return [];
  const chains = [...new Set(targets.map((m) => m.chain))];
  // The chains whose hourly USD prices the DEX area makes in this process's deployment (Morpho snapshots wait for them).
  const dexPriced = new Set(env.config.disabledAreas.has('dex') ? [] : dexTargets(env).chains);
  const ingest = new LendingIngest(evm, targets, LOOKBACK_SECONDS, dexPriced);
  // The chains' USD feeds (the oracle area's): the price policy's feed candidates at each liquidation's instant.
  const feeds = oracleTargets(env).filter((f) => chains.includes(f.chain));

  return [
    {
      name: 'lending.ingest',
      area: 'lending',
      description: `Reads lending market events (Aave, Morpho) from ${chains.join(', ')}`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      async run(ctx) {
        const parts = await eachTarget(ctx, chains, String, (chain) => ingest.events(ctx, chain));
        return parts.join('; ');
      },
    },
    {
      name: 'lending.snapshot',
      area: 'lending',
      description:
        'Reads each lending market’s state (reserves, totals, rates, prices, positions) at the ingested head',
      everySeconds: 10,
      maxAttempts: 3,
      backoffMs: 2000,
      async run(ctx) {
        const parts = await eachTarget(ctx, chains, String, (chain) => ingest.snapshots(ctx, chain));
        return parts.join('; ') || 'no events ingested yet';
      },
    },
    computeJob({
      name: LENDING_COMPUTATION,
      runAfter: ['lending.ingest', 'lending.snapshot', 'oracles.ingest'],
      area: 'lending',
      description: 'Lending market analytics and liquidity health scores, published for the 7 lending paths',
      inputs: async (ctx) => {
        const repo = new LendingRepository(ctx.store.db);
        const snapshots = await repo.latestSnapshotBlocks(targets);
        const oracles = new OracleRepository(ctx.store.db);
        const feedBlocks = await Promise.all(chains.map(async (c) => (await oracles.ingested(c))?.block ?? null));
        // The UTC days each market has a snapshot in: a day-end snapshot taken for a past day (a first start's
        // backfill) is what a day's record and score wait for, and is published without pacing (`coverage`).
        const days = await Promise.all(
          targets.map(async (m) => snapshotDays(await repo.snapshotTimes(m.chain, m.pool))),
        );
        return snapshots.length
          ? { snapshots, pricesAt: await dexPriceBlocks(ctx.store.db, chains), feeds: feedBlocks, days }
          : wait('no snapshots yet');
      },
      coverage: (inputs) => inputs.days.reduce((a, b) => a + b, 0),
      load: async (ctx) =>
        (await new LendingRepository(ctx.store.db).computeInput(targets, feeds)) ?? wait('no snapshots yet'),
      compute: computeLending,
      documents: (output, input) => lendingDocuments(output, input.asOf),
      describe: (input) => `as of ${isoSeconds(input.asOf)}`,
    }),
  ];
}

/** The documents of one computation, at their paths (canonical letter case per path). */
export function lendingDocuments(output: LendingOutput, asOf: number): NamedDocument[] {
  const docs = new DocumentSet(lendingPaths, { asOf });
  const values = (k: { chain: string; protocol: string; version: string; baseAsset: string }) => ({
    chain: k.chain,
    protocol: k.protocol,
    version: k.version,
    base_asset: k.baseAsset,
  });
  const scored = { methodology: LENDING_METHODOLOGY };
  docs.add('lending.available-markets', {}, output.available);
  for (const a of output.assets)
    docs.add('lending.asset-analytics', { ...values(a.key), token_address: a.token }, a.data);
  for (const m of output.markets) docs.add('lending.protocol-analytics', values(m.key), m.data);
  for (const s of output.scores) {
    const v = values(s.key);
    docs.add(
      'lending.protocol-score',
      { ...v, version: v.version.toLowerCase(), base_asset: v.base_asset.toLowerCase() },
      s.data,
      scored,
    );
  }
  for (const o of output.overviews) docs.add('lending.market-overview', { protocol: o.protocol }, o.data);
  for (const o of output.overviewScores)
    docs.add('lending.market-overview-score', { protocol: o.protocol }, o.data, scored);
  docs.add('lending.all-markets', {}, output.all, scored);
  return docs.documents;
}
