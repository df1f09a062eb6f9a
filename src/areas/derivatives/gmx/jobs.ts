import { DAY, HOUR } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { eachTarget } from '../../kit/each-target.js';
import type { AreaEnv } from '../../kit/module.js';
import { SnapshotSchedule } from '../../kit/snapshot-schedule.js';
import { GmxIngest } from './ingest.js';
import { gmxTargets } from './targets.js';

/**
 * The GMX part's jobs (wiring only):
 * - `derivatives.gmx.ingest`: the EventEmitter's events the figures need → `gmx_events`, markets from
 *   `MarketCreated` and the DataStore's `MARKET_LIST` → `gmx_markets`, token metadata → `gmx_tokens`; incremental
 *   from the engine's checkpoint;
 * - `derivatives.gmx.snapshot`: the DataStore's state (open interest per market, collateral and side, pool amounts,
 *   funding state, caps) at the ingested head every 5 minutes of chain time and at the last block of each of the 6
 *   previous UTC days without one → `gmx_snapshots`.
 * No computation yet: the area's records (derivatives-top) publish from `computeGmx` (compute.ts).
 */
/** Whole UTC days back from the first ingestion: the 7 daily records' events (the oldest day complete). */
const LOOKBACK_SECONDS = 7 * DAY;

export function gmxJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = gmxTargets(env);
  if (!evm || !targets.length) return [];
  // A snapshot within an hour before a day's end stands for the day; otherwise the day's last block is read.
  const schedule = new SnapshotSchedule({ everySeconds: 300, days: 6, toleranceSeconds: HOUR, rememberGaps: true });
  const ingest = new GmxIngest(evm, LOOKBACK_SECONDS, schedule);
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
  ];
}
