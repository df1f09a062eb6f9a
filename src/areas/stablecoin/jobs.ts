import type { JobContext, JobDef } from '../../jobs/types.js';
import { DexReadModel, dexPriceBlocks } from '../dex/public.js';
import { computeJob, DocumentSet, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { snapshotDays } from '../kit/snapshot-schedule.js';
import { feedAnswers, OracleRepository, oracleTargets } from '../oracles/public.js';
import { computeStablecoin, type StablecoinDexInput, type StablecoinInput, type StablecoinOutput } from './compute.js';
import { StablecoinIngest } from './ingest.js';
import { HISTORY_SECONDS, StablecoinRepository, stablecoinFacts } from './repo.js';
import { stablecoinPaths } from './routes.js';
import { STABLECOIN_METHODOLOGY } from './score.js';
import { type StablecoinTarget, stablecoinTargets } from './targets.js';

/**
 * The stablecoin area's jobs: `stablecoin.ingest` (each protocol's logs → facts, and state snapshots through
 * multicall) and `stablecoin.compute` (the facts, the DEX area's pools and hourly prices → the 4 paths' documents,
 * published at once). Without a stablecoin entry point in the address book there are no jobs: nothing to wait for.
 */
export const STABLECOIN_COMPUTATION = 'stablecoin.compute';
/** As the DEX area: half an hour without a newer block means the chain or the RPC stalled. */
/** DEX facts read for the history: the 7 days and one of margin (pool states are rebuilt from their events). */
const DEX_HISTORY = 8 * 86_400;

async function dexInput(db: JobContext['store']['db'], chains: readonly string[], asOf: number) {
  const dex = new DexReadModel(db);
  const out: { -readonly [K in keyof StablecoinDexInput]: StablecoinDexInput[K][number][] } = {
    pools: [],
    tokens: [],
    snapshots: [],
    swaps: [],
    syncs: [],
    prices: [],
  };
  for (const chain of chains) {
    const facts = await dex.factsWindow(chain, { from: asOf - DEX_HISTORY, until: asOf });
    out.pools.push(...facts.pools);
    out.tokens.push(...facts.tokens);
    out.snapshots.push(...facts.snapshots);
    out.swaps.push(...facts.swaps);
    out.syncs.push(...facts.syncs);
    out.prices.push(...facts.prices);
  }
  return out;
}

export function stablecoinDocuments(output: StablecoinOutput) {
  const docs = new DocumentSet(stablecoinPaths, { asOf: 0 });
  const scored = { methodology: STABLECOIN_METHODOLOGY };
  for (const [protocol, x] of output.weekly) {
    docs.add('stablecoin.weekly', { protocol }, x.data, { asOf: x.asOf, ...scored });
  }
  for (const [protocol, x] of output.collaterals) {
    docs.add('stablecoin.collaterals', { protocol }, x.data, { asOf: x.asOf, ...scored });
  }
  for (const [key, x] of output.scores) {
    const [chain, protocol] = key.split('/') as [string, string];
    docs.add('stablecoin.score', { chain, protocol }, x.data, { asOf: x.asOf, ...scored });
  }
  if (output.allMarkets) {
    docs.add('stablecoin.all-markets', {}, output.allMarkets.data, { asOf: output.allMarkets.asOf, ...scored });
  }
  return docs.documents;
}

export function stablecoinJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets: StablecoinTarget[] = stablecoinTargets(env);
  if (!evm || !targets.length) return [];
  const chains = [...new Set(targets.map((t) => t.chain))];
  const ingest = new StablecoinIngest(evm, targets, HISTORY_SECONDS);
  // The chains' USD feeds: the price policy's feed candidates, as the lending area's AaveOracle reads them.
  const feeds = oracleTargets(env).filter((f) => chains.includes(f.chain));
  return [
    {
      name: 'stablecoin.ingest',
      area: 'stablecoin',
      description: `Reads ${targets.map((t) => t.protocol).join(', ')} logs and state from ${chains.join(', ')}`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      run: (ctx) => ingest.run(ctx),
    },
    computeJob({
      name: STABLECOIN_COMPUTATION,
      area: 'stablecoin',
      runAfter: ['stablecoin.ingest', 'prices.hourly', 'oracles.ingest'],
      description: 'Stablecoin analytics, collaterals and liquidity scores, published for the 4 stablecoin paths',
      inputs: async (ctx) => {
        const repo = new StablecoinRepository(ctx.store.db);
        const heads: [string, number][] = [];
        // The UTC days each protocol has a snapshot in: a past day's end taken by the backfill is what that day's
        // record waits for, and is published without pacing (`coverage`).
        const days: number[] = [];
        for (const t of targets) {
          const snapshots = await repo.snapshotHeads(t.chain, t.protocol);
          const [head] = snapshots;
          if (head) heads.push([`${t.chain}/${t.protocol}`, head.blockNumber]);
          days.push(snapshotDays(snapshots));
        }
        const oracles = new OracleRepository(ctx.store.db);
        const feedBlocks = await Promise.all(chains.map(async (c) => (await oracles.ingested(c))?.block ?? null));
        return heads.length
          ? { heads, prices: await dexPriceBlocks(ctx.store.db, chains), feeds: feedBlocks, days }
          : wait('no snapshot yet');
      },
      coverage: (inputs) => inputs.days.reduce((a, b) => a + b, 0),
      load: async (ctx): Promise<StablecoinInput | ReturnType<typeof wait>> => {
        const protocols = await stablecoinFacts(new StablecoinRepository(ctx.store.db), targets);
        if (!protocols.length) return wait('no snapshot yet');
        const newest = Math.max(...protocols.map((p) => p.snapshots.at(-1)?.timestamp ?? 0));
        const oldest = Math.min(...protocols.map((p) => p.snapshots[0]?.timestamp ?? newest));
        return {
          protocols,
          dex: await dexInput(ctx.store.db, chains, newest),
          feeds: await feedAnswers(ctx.store.db, feeds, oldest - 86_400, newest),
        };
      },
      compute: computeStablecoin,
      documents: (output) => stablecoinDocuments(output),
      describe: (input) =>
        input.protocols.map((p) => `${p.target.protocol} at block ${p.snapshots.at(-1)?.blockNumber}`).join(', '),
    }),
  ];
}
