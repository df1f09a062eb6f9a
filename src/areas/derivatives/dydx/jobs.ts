import { DAY, HOUR, isoSeconds } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { eachTarget } from '../../kit/each-target.js';
import { computeJob, freshForEvery, wait } from '../../kit/index.js';
import type { AreaEnv } from '../../kit/module.js';
import { venueDocuments } from '../documents.js';
import { computeDydx, type DydxComputeInput } from './compute.js';
import { DydxIngest } from './ingest.js';
import { dydxPublication } from './publish.js';
import { DydxRepository } from './repo.js';
import { dydxTargets } from './targets.js';

/** The dYdX part's computation (its checkpoint and the datasets' `computation`). */
export const DYDX_COMPUTATION = 'derivatives.dydx.compute';

/** Whole UTC days read back on a first run: the 7 records' days and one older for the funding spread. */
const LOOKBACK_SECONDS = 7 * DAY;
/** Days computed: the 7 records and the day before the oldest (the funding spread's). */
const DAYS = 8;

/**
 * The dYdX part's jobs (wiring only):
 * - `derivatives.dydx.markets` (every 60 s): the indexer's market list → `dydx_markets` (rows only where it changed);
 * - `derivatives.dydx.ingest` (every 60 s; reads only once an hour has closed): per market the closed hours' taker
 *   fills summed → `dydx_trade_hours`, funding points → `dydx_funding`, daily candles → `dydx_candles`, and the
 *   module accounts' USDC at day ends → `dydx_balances`, with its checkpoint;
 * - `derivatives.dydx.compute`: the facts of the last 8 days → `computeDydx` (compute.ts) → the area's three payloads
 *   (`publish.ts`, `records.ts`), published when the market list changed or a new hour was read.
 */
export function dydxJobs(env: AreaEnv): JobDef[] {
  const dydx = env.sources.get('dydx');
  const targets = dydxTargets(env);
  if (!dydx || !targets.length) return [];
  const ingest = new DydxIngest(dydx.client, LOOKBACK_SECONDS);
  const name = (t: (typeof targets)[number]) => t.protocol;
  return [
    {
      name: 'derivatives.dydx.markets',
      area: 'derivatives',
      description: `Reads dYdX v4's market list from its indexer (${targets.map(name).join(', ')})`,
      everySeconds: 60,
      maxAttempts: 3,
      backoffMs: 2000,
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.markets(ctx, t))).join('; ');
      },
    },
    {
      name: 'derivatives.dydx.ingest',
      area: 'derivatives',
      description: 'Reads dYdX v4 closed hours: taker fills, hourly funding, daily candles, module balances',
      everySeconds: 60,
      maxAttempts: 5,
      backoffMs: 2000,
      runAfter: ['derivatives.dydx.markets'],
      async run(ctx) {
        return (await eachTarget(ctx, targets, name, (t) => ingest.hourly(ctx, t))).join('; ');
      },
    },
    computeJob({
      name: DYDX_COMPUTATION,
      runAfter: ['derivatives.dydx.ingest'],
      // Its inputs move only when the jobs it runs after write (which make it due at once).
      everySeconds: 60,
      area: 'derivatives',
      description: `dYdX v4 pairs and 7 daily records of the protocol and its pairs (${targets.map(name).join(', ')})`,
      inputs: async (ctx) => {
        const repo = new DydxRepository(ctx.store.db);
        const heads: [string, number, number][] = [];
        for (const t of targets) {
          const markets = await repo.marketsChangedAt(t.protocol);
          const hourly = await repo.hourlyCheckpoint(t.protocol);
          if (markets !== undefined && hourly) heads.push([t.protocol, markets, hourly.readTo]);
        }
        return heads.length ? { heads } : wait('no dYdX markets and hours read yet');
      },
      load: async (ctx) => {
        const repo = new DydxRepository(ctx.store.db);
        const venues: DydxComputeInput[] = [];
        for (const t of targets) {
          const input = await repo.computeInput(t, DAYS, dydx.client.readsBalances);
          if (input) venues.push(input);
        }
        return venues.length ? { venues } : wait('no dYdX markets read yet');
      },
      compute: ({ venues }) => venues.map(computeDydx),
      documents: (outputs) =>
        outputs.flatMap((out) => {
          const target = targets.find((t) => t.protocol === out.protocol)!;
          // The payload's instant moves by the hour (the hourly reads): two missed reads and a margin before stale.
          return venueDocuments(dydxPublication(out, target.pairs), target.pairs, out.asOf, {
            freshFor: freshForEvery(HOUR),
          });
        }),
      describe: (input) => input.venues.map((v) => `${v.protocol} as of ${isoSeconds(v.asOf)}`).join(', '),
    }),
  ];
}
