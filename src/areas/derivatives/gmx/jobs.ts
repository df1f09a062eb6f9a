import { DAY, HOUR, isoSeconds } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { eachTarget } from '../../kit/each-target.js';
import { chainSourceLabel, computeJob, wait } from '../../kit/index.js';
import type { AreaEnv } from '../../kit/module.js';
import { SnapshotSchedule } from '../../kit/snapshot-schedule.js';
import { venueDocuments } from '../documents.js';
import { computeGmx, type GmxComputeInput } from './compute.js';
import { GmxIngest } from './ingest.js';
import { gmxPublication } from './publish.js';
import { GmxRepository } from './repo.js';
import { gmxTargets } from './targets.js';

/** The GMX part's computation (its checkpoint and the datasets' `computation`). */
export const GMX_COMPUTATION = 'derivatives.gmx.compute';

/**
 * The GMX part's jobs (wiring only):
 * - `derivatives.gmx.ingest`: the EventEmitter's events the figures need → `gmx_events`, markets from
 *   `MarketCreated` and the DataStore's `MARKET_LIST` (read on the process's first run, then only when the stored
 *   market count changed) → `gmx_markets`, token metadata while a token lacks it (ERC-20, and the oracle keeper's
 *   `/tokens` for synthetic index tokens when the process reads `gmx_oracle`) → `gmx_tokens`; incremental from the
 *   engine's checkpoint;
 * - `derivatives.gmx.snapshot`: the DataStore's state (open interest per market, collateral and side, pool amounts,
 *   funding state, caps) at the ingested head every 5 minutes of chain time and at the last block of each of the 6
 *   previous UTC days without one → `gmx_snapshots`.
 * - `derivatives.gmx.compute`: the stored facts of each venue's last 8 days → `computeGmx` (compute.ts) → the
 *   area's three payloads (`publish.ts`, `records.ts`), published when a new snapshot was taken or a market or a
 *   token's name was added.
 */
/** Whole UTC days back from the first ingestion: the 7 daily records' events (the oldest day complete). */
const LOOKBACK_SECONDS = 7 * DAY;

export function gmxJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = gmxTargets(env);
  if (!evm || !targets.length) return [];
  // A snapshot within an hour before a day's end stands for the day; otherwise the day's last block is read.
  const schedule = new SnapshotSchedule({ everySeconds: 300, days: 6, toleranceSeconds: HOUR, rememberGaps: true });
  const ingest = new GmxIngest(evm, LOOKBACK_SECONDS, schedule, env.sources.get('gmx_oracle'));
  const name = (t: (typeof targets)[number]) => `${t.protocol} ${t.chain}`;
  return [
    {
      name: 'derivatives.gmx.ingest',
      area: 'derivatives',
      description: `Reads GMX v2 EventEmitter events and the DataStore's market list (${targets.map(name).join(', ')})`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.events(ctx, t))).join('; ');
      },
    },
    {
      name: 'derivatives.gmx.snapshot',
      area: 'derivatives',
      description: 'Reads GMX v2 DataStore state (open interest, pool amounts, funding, caps) at the ingested head',
      everySeconds: 10,
      maxAttempts: 3,
      backoffMs: 2000,
      runAfter: ['derivatives.gmx.ingest'],
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.snapshots(ctx, t))).join('; ');
      },
    },
    computeJob({
      name: GMX_COMPUTATION,
      runAfter: ['derivatives.gmx.snapshot'],
      area: 'derivatives',
      description: `GMX v2 pairs and 7 daily records of the protocol and its pairs (${targets.map(name).join(', ')})`,
      inputs: async (ctx) => {
        const repo = new GmxRepository(ctx.store.db);
        // The newest snapshot, and the markets and named tokens: a token named after the snapshot (the oracle
        // keeper answering late) changes the pairs and their USD figures without a new snapshot.
        const heads: [string, number, number, number][] = [];
        for (const t of targets) {
          const newest = (await repo.snapshotTimes(t.chain, t.dataStore)).at(-1);
          if (!newest) continue;
          const { markets, tokens } = await repo.metadataCounts(t.chain, t.dataStore);
          heads.push([name(t), newest.blockNumber, markets, tokens]);
        }
        return heads.length ? { heads } : wait('no GMX snapshot stored yet');
      },
      load: async (ctx) => {
        const repo = new GmxRepository(ctx.store.db);
        const venues: GmxComputeInput[] = [];
        for (const t of targets) {
          const input = await repo.computeInput(t);
          if (input) venues.push(input);
        }
        return venues.length ? { venues } : wait('no GMX snapshot stored yet');
      },
      compute: ({ venues }) => venues.map(computeGmx),
      documents: (outputs) =>
        outputs.flatMap((out) => {
          const target = targets.find((t) => t.protocol === out.protocol && t.chain === out.chain)!;
          // A venue's documents name its own chain, not every chain the EVM source reads.
          return venueDocuments(gmxPublication(out, target.pairs), target.pairs, out.asOf, {
            source: chainSourceLabel(env, out.chain),
          });
        }),
      describe: (input) => input.venues.map((v) => `${v.protocol} as of ${isoSeconds(v.asOf)}`).join(', '),
    }),
  ];
}
