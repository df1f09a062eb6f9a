import { DAY, dailyHistoryInstants, startOfUtcDay, utcDate } from '../../../core/time.js';
import type { JobDef } from '../../../jobs/types.js';
import { computeJob, DocumentSet, wait } from '../../kit/index.js';
import type { AreaEnv } from '../../kit/module.js';
import { loadNativeUsdByDay } from '../prices.js';
import { BLOCKCHAIN_FRESH_FOR_SECONDS, blockchainPaths } from '../routes.js';
import { computeBitcoin } from './compute.js';
import { BitcoinIngest, DEFAULT_BITCOIN_INGEST } from './ingest.js';
import {
  BITCOIN_ERROR_KEY,
  BITCOIN_INGEST_KEY,
  BitcoinRepository,
  type ErrorCheckpoint,
  type IngestCheckpoint,
} from './repo.js';
import { BITCOIN_METHODOLOGY } from './schema.js';

/**
 * The blockchain area's Bitcoin part's jobs: `blockchain.bitcoin.ingest` (blocks and mempool samples from Bitcoin Core's
 * RPC into facts) and `blockchain.bitcoin.compute` (the 7 daily records of l1_chain = bitcoin, published on
 * `transaction-statistics`, `network-statistics` and the chain's own path).
 */
export const BITCOIN_COMPUTATION = 'blockchain.bitcoin.compute';
/** Publications follow new blocks, and the mempool at most every 10 minutes. */
const SAMPLE_BUCKET = 600;

export function bitcoinJobs(env: AreaEnv): JobDef[] {
  const endpoint = env.sources.get('bitcoin');
  if (!endpoint) return [];
  const finalityDepth = env.registry.chain('bitcoin')?.finalityDepth ?? 6;
  const ingest = new BitcoinIngest(endpoint.client, { ...DEFAULT_BITCOIN_INGEST, finalityDepth });

  return [
    {
      name: 'blockchain.bitcoin.ingest',
      area: 'blockchain',
      description: 'Reads Bitcoin blocks (getblock 3, getblockstats, getnetworkhashps) and mempool samples',
      // As often as the DEX ingest: a pass ends at its time budget (a first start's history takes a few), and the
      // next one then starts within seconds rather than half a minute later.
      everySeconds: 10,
      maxAttempts: 3,
      backoffMs: 2000,
      run: (ctx) => ingest.run(ctx),
    },
    computeJob({
      name: BITCOIN_COMPUTATION,
      runAfter: ['blockchain.bitcoin.ingest'],
      area: 'blockchain',
      description: 'Bitcoin daily transaction and network statistics, published for l1_chain = bitcoin',
      inputs: async (ctx) => {
        const repo = new BitcoinRepository(ctx.store.db);
        const done = await repo.checkpoint<IngestCheckpoint>(BITCOIN_INGEST_KEY);
        if (!done) return wait('no Bitcoin block ingested yet');
        const error = await repo.checkpoint<ErrorCheckpoint>(BITCOIN_ERROR_KEY);
        const failing = error !== undefined && error.at > done.at;
        return {
          next: done.next,
          at: Math.floor(done.at / SAMPLE_BUCKET) * SAMPLE_BUCKET,
          failingSince: failing ? Math.floor(error.at / SAMPLE_BUCKET) * SAMPLE_BUCKET : null,
        };
      },
      load: async (ctx) => {
        const repo = new BitcoinRepository(ctx.store.db);
        const done = (await repo.checkpoint<IngestCheckpoint>(BITCOIN_INGEST_KEY))!;
        const error = await repo.checkpoint<ErrorCheckpoint>(BITCOIN_ERROR_KEY);
        const sourceError = error !== undefined && error.at > done.at;
        const asOf = sourceError ? error.at : done.at;
        const since = startOfUtcDay(asOf) - 6 * DAY;
        return {
          asOf,
          knownUntil: done.at,
          sourceError,
          ...(await repo.computeInput(since)),
          // BTC/USD per day under the price policy (prices.ts): the BTC-USD feed, else WBTC's DEX price.
          prices: await loadNativeUsdByDay(ctx.store.db, env, 'BTC', dailyHistoryInstants(asOf).map(utcDate), asOf),
          finalConfirmations: finalityDepth,
        };
      },
      compute: computeBitcoin,
      documents: (output, input) => {
        // `meta.source`: Bitcoin Core alone (this part's label), not every source of the area (EVM nodes, beacon).
        const docs = new DocumentSet(blockchainPaths, { asOf: input.asOf, freshFor: BLOCKCHAIN_FRESH_FOR_SECONDS });
        const params = { l1_chain: 'bitcoin' };
        const options = { methodology: BITCOIN_METHODOLOGY };
        docs.add('blockchain.transaction-statistics', params, output.transactions, options);
        docs.add('blockchain.network-statistics', params, output.network, options);
        docs.add('blockchain.l1', params, output.l1, options);
        return docs.documents;
      },
      describe: (input) => `up to block ${input.blocks.at(-1)?.height ?? 'none'}`,
    }),
  ];
}
