import { DAY, isoSeconds } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { dexPriceBlocks } from '../dex/public.js';
import { computeJob, DocumentSet, eachTarget, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeOracles } from './compute.js';
import { OracleIngest } from './ingest.js';
import { OracleRepository } from './repo.js';
import { oraclesPaths } from './routes.js';
import { oracleTargets } from './targets.js';

/**
 * The oracle area's jobs: `oracles.ingest` (resolve each feed's aggregator and decimals, then its AnswerUpdated
 * logs → `oracle_rounds`) and `oracles.compute` (rounds + the DEX area's hourly USD prices → the pair listing and
 * the pairs' 7 daily records, published at once).
 */
export const ORACLE_COMPUTATION = 'oracles.compute';
/**
 * Where ingestion starts when the environment names no start block (production feeds): this far below the head
 * at the first run. The records need 14 days of rounds; one more day covers the predecessor of the oldest ones
 * for feeds with a one-day heartbeat.
 */
const LOOKBACK_SECONDS = 15 * DAY;
/** As the DEX area's: the jobs run every 10 s, so half an hour without a newer block means a stalled chain or RPC. */

export function oraclesJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = oracleTargets(env);
  if (!evm || !targets.length) return [];
  const chains = [...new Set(targets.map((f) => f.chain))];
  const ingest = new OracleIngest(evm, targets, LOOKBACK_SECONDS);

  return [
    {
      name: 'oracles.ingest',
      area: 'oracles',
      description: `Reads price feed rounds (AnswerUpdated) from ${chains.join(', ')}`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      async run(ctx) {
        const parts = await eachTarget(ctx, chains, String, (chain) => ingest.run(ctx, chain));
        return parts.join('; ');
      },
    },
    computeJob({
      name: ORACLE_COMPUTATION,
      runAfter: ['oracles.ingest'],
      area: 'oracles',
      description: 'Weekly dynamic parameters of every price feed, published for the 2 oracle paths',
      // Recompute when the rounds or the DEX prices moved (prices of the same hours may arrive after the rounds).
      inputs: async (ctx) => {
        const heads = await ingest.heads(ctx, chains);
        if (!heads.length) return wait('no rounds ingested yet');
        // One as_of for the publication: the chain that is furthest behind.
        const asOf = Math.min(...heads.map((h) => h.timestamp));
        return { asOf, pricesAt: await dexPriceBlocks(ctx.store.db, chains) };
      },
      load: (ctx, { asOf }) => new OracleRepository(ctx.store.db).computeInput(targets, asOf),
      compute: computeOracles,
      documents: (output, input) => {
        const docs = new DocumentSet(oraclesPaths, { asOf: input.asOf });
        for (const oracle of new Set(targets.map((f) => f.oracle))) {
          docs.add('oracles.pairs', { oracle }, output.pairs);
          for (const [pair, records] of output.records) docs.add('oracles.pair', { oracle, pair }, records);
        }
        return docs.documents;
      },
      describe: (input) => `as of ${isoSeconds(input.asOf)}`,
    }),
  ];
}
