import { DAY, isoSeconds, nowSeconds } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { chainSourceLabel, computeJob, DocumentSet, eachTarget, wait } from '../../kit/index.js';
import type { AreaEnv } from '../../kit/module.js';
import { loadNativeUsdByDay } from '../prices.js';
import { BLOCKCHAIN_FRESH_FOR_SECONDS, blockchainPaths } from '../routes.js';
import { type ChainInput, computeBlockchain } from './compute.js';
import { BlockchainIngest } from './ingest.js';
import { BlockchainRepository } from './repo.js';
import { EVM_METHODOLOGY } from './schema.js';
import { blockchainTargets } from './targets.js';

/**
 * The blockchain area's EVM part's jobs: `blockchain.ingest` (blocks, receipts and a network sample per chain; one chain
 * failing leaves the others' runs committed) and `blockchain.compute` (stored facts → the 7-day documents of every
 * chain with stored blocks, published together; a chain whose node stopped answering is recomputed from what was
 * stored, so its documents stay as they were).
 */
export const BLOCKCHAIN_COMPUTATION = 'blockchain.compute';
/** Prices move while blocks do not: the computation runs again at least this often (identical documents kept). */
const PRICE_REFRESH_SECONDS = 600;

export function blockchainJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const beacon = env.sources.get('beacon');
  const targets = blockchainTargets(env);
  if (!evm || !targets.length) return [];
  const ingest = new BlockchainIngest(evm, beacon);
  return [
    {
      name: 'blockchain.ingest',
      area: 'blockchain',
      description: `Reads whole blocks, receipts and network samples of ${targets.map((t) => t.chain).join(', ')}`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      run: async (ctx) => {
        const done = await eachTarget(
          ctx,
          targets,
          (t) => t.chain,
          (t) => ingest.run(ctx, t),
          { concurrent: true },
        );
        return done.join('; ');
      },
    },
    computeJob({
      name: BLOCKCHAIN_COMPUTATION,
      runAfter: ['blockchain.ingest'],
      area: 'blockchain',
      description: 'Daily transaction and network statistics of Ethereum and the layer 2s, 7 days',
      keepIdentical: true,
      inputs: async (ctx) => {
        const repo = new BlockchainRepository(ctx.store.db);
        const heads: [string, number, string, number | null][] = [];
        // The UTC day of each chain's newest stored block: a day the ingestion completes (at a first start, each
        // day of the backfill in turn) is what that day's record waits for, and is published without pacing.
        const days: number[] = [];
        for (const t of targets) {
          const last = await repo.lastBlock(t.chain);
          if (!last) continue;
          heads.push([t.chain, last.number, last.hash, await repo.lastSampleAt(t.chain)]);
          days.push(Math.floor(last.timestamp / DAY));
        }
        if (!heads.length) return wait('no block stored yet');
        return { heads, prices: Math.floor(nowSeconds(ctx.clock) / PRICE_REFRESH_SECONDS), days };
      },
      coverage: (inputs) => inputs.days.reduce((a, b) => a + b, 0),
      load: async (ctx) => {
        const repo = new BlockchainRepository(ctx.store.db);
        const chains: ChainInput[] = [];
        for (const t of targets) {
          const input = await repo.chainInput(t, (days, asOf) =>
            loadNativeUsdByDay(ctx.store.db, env, 'ETH', days, asOf),
          );
          if (input) chains.push(input);
        }
        return chains.length ? { chains } : wait('no block stored yet');
      },
      compute: computeBlockchain,
      documents: (output) => {
        const docs: ReturnType<DocumentSet['add']>['documents'] = [];
        for (const c of output.chains) {
          const beacon = targets.find((t) => t.chain === c.chain)?.beacon ?? false;
          const source = chainSourceLabel(env, c.chain, { beacon });
          // Each chain's documents name their own chain (and the beacon API for Ethereum's), not every chain read.
          const set = new DocumentSet(blockchainPaths, {
            asOf: c.asOf,
            source,
            freshFor: BLOCKCHAIN_FRESH_FOR_SECONDS,
          });
          const m = { methodology: EVM_METHODOLOGY };
          if (c.transactionStatistics)
            set.add('blockchain.transaction-statistics', { l1_chain: c.chain }, c.transactionStatistics, m);
          if (c.networkStatistics)
            set.add('blockchain.network-statistics', { l1_chain: c.chain }, c.networkStatistics, m);
          if (c.l1) set.add('blockchain.l1', { l1_chain: c.chain }, c.l1, m);
          if (c.l2) set.add('blockchain.l2', { l2_chain: c.chain }, c.l2, m);
          docs.push(...set.documents);
        }
        return docs;
      },
      describe: (input) => input.chains.map((c) => `${c.chain} as of ${isoSeconds(c.asOf)}`).join(', '),
    }),
  ];
}
