import { DAY, HOUR, isoSeconds } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { readCheckpoint } from '../../../store/checkpoints.js';
import { eachTarget } from '../../kit/each-target.js';
import { computeJob, freshForEvery, wait } from '../../kit/index.js';
import type { AreaEnv } from '../../kit/module.js';
import { venueDocuments } from '../documents.js';
import { computeSynthetix, type SynthetixComputeInput } from './compute.js';
import { historyCheckpointKey, SynthetixIngest } from './ingest.js';
import { synthetixPublication } from './publish.js';
import { SynthetixRepository } from './repo.js';
import { type SynthetixTarget, synthetixTargets } from './targets.js';

/** The Synthetix part's computation (its checkpoint and the datasets' `computation`). */
export const SYNTHETIX_COMPUTATION = 'derivatives.synthetix.compute';

/** Whole UTC days before the running one read on a first run: the 7 records' candles and funding, and one more. */
const LOOKBACK_SECONDS = 7 * DAY;

/**
 * The Synthetix part's jobs (wiring only), at the data's cadence:
 * - `derivatives.synthetix.markets` (every 60 s): markets, prices and open interest → `synthetix_markets`,
 *   `synthetix_observations`;
 * - `derivatives.synthetix.history` (after each markets run, and every 5 minutes): per market once an hour, the
 *   hourly candles and funding rates since the newest stored ones → `synthetix_candles`, `synthetix_funding`; a run
 *   in an hour already read returns after one query;
 * - `derivatives.synthetix.compute`: the stored facts → `computeSynthetix` → the area's three payloads
 *   (`publish.ts`, `records.ts`), published when an observation, candle, funding point, market or history read moved.
 */
export function synthetixJobs(env: AreaEnv): JobDef[] {
  const endpoint = env.sources.get('synthetix');
  const targets = synthetixTargets(env);
  if (!endpoint || !targets.length) return [];
  const ingest = new SynthetixIngest(endpoint, LOOKBACK_SECONDS);
  const name = (t: SynthetixTarget) => t.protocol;
  return [
    {
      name: 'derivatives.synthetix.markets',
      area: 'derivatives',
      description: `Reads Synthetix's markets, prices and open interest (${endpoint.baseUrl})`,
      everySeconds: 60,
      maxAttempts: 3,
      backoffMs: 2000,
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.markets(ctx, t))).join('; ');
      },
    },
    {
      name: 'derivatives.synthetix.history',
      area: 'derivatives',
      description: `Reads Synthetix's hourly candles and funding rates, once an hour per market (${endpoint.baseUrl})`,
      everySeconds: 300,
      maxAttempts: 3,
      backoffMs: 2000,
      runAfter: ['derivatives.synthetix.markets'],
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.history(ctx, t))).join('; ');
      },
    },
    computeJob({
      name: SYNTHETIX_COMPUTATION,
      area: 'derivatives',
      everySeconds: 60,
      runAfter: ['derivatives.synthetix.markets', 'derivatives.synthetix.history'],
      description: `Synthetix pairs and 7 daily records of the protocol and its pairs (${targets.map(name).join(', ')})`,
      inputs: async (ctx) => {
        const repo = new SynthetixRepository(ctx.store.db);
        const heads: unknown[] = [];
        for (const t of targets) {
          const newest = await repo.newest(t.protocol);
          if (!newest) continue;
          const markets = (await repo.markets(t.protocol)).map(
            (m) => `${m.symbol}:${m.isOpen ? 1 : 0}${m.isCloseOnly ? 1 : 0}`,
          );
          // Each market's last history read: a market read again after a failed read moves no newest point.
          const read = (await readCheckpoint(ctx.store.db, historyCheckpointKey(t.protocol))) ?? {};
          heads.push([t.protocol, newest.observation, newest.candle, newest.funding, markets, read]);
        }
        return heads.length ? { heads } : wait('no Synthetix observation stored yet');
      },
      load: async (ctx) => {
        const repo = new SynthetixRepository(ctx.store.db);
        const venues: SynthetixComputeInput[] = [];
        for (const t of targets) {
          const input = await repo.computeInput(t);
          if (input) venues.push(input);
        }
        return venues.length ? { venues } : wait('no Synthetix observation stored yet');
      },
      compute: ({ venues }) => venues.map(computeSynthetix),
      documents: (outputs) =>
        outputs.flatMap((out) => {
          const target = targets.find((t) => t.protocol === out.protocol)!;
          // `meta.source` is the part's label: the Synthetix source's (`synthetix`, `sandbox:synthetix`).
          // The flows and funding are read by the hour (each market at most once an hour), and the sandbox's
          // exchange moves by the hour: as dYdX's, two missed hours and a margin before stale (not 30 minutes,
          // which flagged every sandbox run stale in the second half of each hour).
          return venueDocuments(synthetixPublication(out, target.pairs), target.pairs, out.asOf, {
            freshFor: freshForEvery(HOUR),
          });
        }),
      describe: (input) => input.venues.map((v) => `${v.protocol} as of ${isoSeconds(v.asOf)}`).join(', '),
    }),
  ];
}
