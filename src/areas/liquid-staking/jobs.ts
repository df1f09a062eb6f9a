import type { JobDef } from '../../jobs/types.js';
import { dexTargets } from '../dex/public.js';
import { computeJob, DocumentSet, type NamedDocument, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { lendingTargets } from '../lending/public.js';
import { computeLiquidStaking, exchangeRateBlocks, type LiquidStakingOutput } from './compute.js';
import { LiquidStakingIngest } from './ingest.js';
import { LiquidStakingRepository } from './repo.js';
import { liquidStakingPaths } from './routes.js';
import { DEX_POOL_METHODOLOGY, EXPOSURE_METHODOLOGY } from './score.js';
import { liquidStakingTargets, marketsOfTokens } from './targets.js';

/**
 * The liquid staking area's jobs: `liquid-staking.ingest` reads each token's exchange rate (`stEthPerToken()`) at
 * the blocks the DEX and lending facts describe, as facts of its own; `liquid-staking.compute` reads what the DEX
 * area (pools, snapshots, swaps, syncs, hourly prices) and the lending area (market snapshots) stored, and those
 * rates, and publishes the 6 liquid staking paths at once.
 */
export const LIQUID_STAKING_COMPUTATION = 'liquid-staking.compute';
/** As the DEX area: half an hour without a newer block means the chain or the RPC stalled. */

/** The documents of one computation, keyed by canonical path. */
export function liquidStakingDocuments(output: LiquidStakingOutput, asOf: number): NamedDocument[] {
  const docs = new DocumentSet(liquidStakingPaths, { asOf });
  docs.add('liquid-staking.available-lending-markets-exposure', {}, output.availableLending);
  docs.add('liquid-staking.available-dexes-exposure', {}, output.availableDexes);
  for (const [pool, x] of output.poolAnalytics) {
    docs.add('liquid-staking.pool-analytics-in-dex', { pool_address: pool }, x.data, {
      asOf: x.asOf,
      methodology: DEX_POOL_METHODOLOGY,
    });
  }
  for (const [pool, x] of output.poolScores) {
    docs.add('liquid-staking.dex-pool-scores', { pool_address: pool }, x.data, {
      asOf: x.asOf,
      methodology: x.data[0]?.methodology,
    });
  }
  for (const m of output.lending) {
    const values = {
      chain: m.chain,
      protocol: m.protocol,
      version: m.version,
      base_asset: m.baseAsset,
      flag: String(m.flag),
    };
    docs.add('liquid-staking.asset-analytics-in-lending', values, m.analytics, {
      asOf: m.asOf,
      methodology: EXPOSURE_METHODOLOGY,
    });
    docs.add('liquid-staking.exposure-in-lending', values, m.scores, {
      asOf: m.asOf,
      methodology: m.scores[0]?.methodology,
    });
  }
  return docs.documents;
}

export function liquidStakingJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const lendingMarkets = lendingTargets(env);
  const lsts = liquidStakingTargets(env, lendingMarkets);
  if (!evm || !lsts.length) return [];
  const exchangeNames = new Map(
    dexTargets(env).deployments.map((d) => [`${d.chain}/${d.protocol}/${d.version}`, d.exchangeName]),
  );
  const markets = marketsOfTokens(lsts, lendingMarkets);
  const ingest = new LiquidStakingIngest(evm, lsts, markets, exchangeNames);

  return [
    {
      name: 'liquid-staking.ingest',
      area: 'liquid-staking',
      description:
        'Reads liquid staking tokens’ exchange rates (stEthPerToken) at the blocks the DEX and lending facts describe',
      everySeconds: 10,
      maxAttempts: 3,
      backoffMs: 2000,
      run: (ctx) => ingest.run(ctx),
    },
    computeJob({
      name: LIQUID_STAKING_COMPUTATION,
      runAfter: ['liquid-staking.ingest'],
      area: 'liquid-staking',
      description:
        'Liquid staking token exposure in lending markets and DEX pools (analytics and scores), published for the 6 liquid staking paths',
      // The rates ingested for the current upstream (a new upstream waits for its rates).
      // The facts whose rates liquid-staking.ingest read last (a pin: DEX and lending snapshot blocks).
      inputs: async (ctx) =>
        (await new LiquidStakingRepository(ctx.store.db).ratesIngestedFor()) ??
        wait('waiting for liquid-staking.ingest'),
      load: async (ctx, pin) => {
        const repo = new LiquidStakingRepository(ctx.store.db);
        const facts = await repo.factsInput(lsts, markets, exchangeNames, pin);
        if (!facts) return wait('the snapshots of the last ingested facts are gone; waiting for liquid-staking.ingest');
        return { ...facts, exchangeRates: await repo.exchangeRates(exchangeRateBlocks(facts)) };
      },
      compute: computeLiquidStaking,
      documents: (output, input) => liquidStakingDocuments(output, input.asOf.timestamp),
      describe: (input) => `at block ${input.asOf.blockNumber}`,
    }),
  ];
}
