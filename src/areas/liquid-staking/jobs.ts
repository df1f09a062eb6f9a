import { parseAbi } from 'viem';
import type { JobContext, JobDef } from '../../jobs/types.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { type DatasetDocument, DatasetRepository } from '../../store/datasets.js';
import { DEX_COMPUTATION, DexRepository, dexTargets } from '../dex/public.js';
import { computeJob, DocumentSet, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { LENDING_COMPUTATION, LendingRepository, lendingTargets, type MarketSnapshot } from '../lending/public.js';
import {
  computeLiquidStaking,
  exchangeRateBlocks,
  historyInstants,
  type LiquidStakingInput,
  type LiquidStakingOutput,
  marketKey,
  rateKey,
  SWAP_HISTORY,
} from './compute.js';
import { liquidStakingPaths } from './routes.js';
import { type LiquidStakingToken, liquidStakingTargets } from './targets.js';

/**
 * `liquid-staking.compute`: reads what the DEX area (pools, snapshots, swaps, syncs, hourly prices) and the lending
 * area (market snapshots) stored, reads each liquid staking token's exchange rate (`stEthPerToken()`) at the blocks
 * those describe, and publishes the 6 liquid staking paths at once. It ingests nothing itself.
 */
export const LIQUID_STAKING_COMPUTATION = 'liquid-staking.compute';
/** As the DEX area: half an hour without a newer block means the chain or the RPC stalled. */
const FRESH_FOR_SECONDS = 1800;
const SOURCE = 'DEX and lending facts of this service (chain logs and state) and stEthPerToken() read by eth_call';

export const STAKED_TOKEN_ABI = parseAbi(['function stEthPerToken() view returns (uint256)']);

/** The documents of one computation, keyed by canonical path. */
export function liquidStakingDocuments(output: LiquidStakingOutput, asOf: number): DatasetDocument[] {
  const docs = new DocumentSet(liquidStakingPaths, { asOf, source: SOURCE, freshFor: FRESH_FOR_SECONDS });
  docs.add('liquid-staking.available-lending-markets-exposure', {}, output.availableLending);
  docs.add('liquid-staking.available-dexes-exposure', {}, output.availableDexes);
  for (const [pool, x] of output.poolAnalytics) {
    docs.add('liquid-staking.pool-analytics-in-dex', { pool_address: pool }, x.data, { asOf: x.asOf });
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
    docs.add('liquid-staking.asset-analytics-in-lending', values, m.analytics, { asOf: m.asOf });
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
  const chains = [...new Set(lsts.map((l) => l.chain))];
  const sourceOf = (chain: string, _ctx?: JobContext): EvmSource => evm.source(chain);
  /** Exchange rates already read: a block's state does not change (below the finality depth it is final). */
  const rateCache = new Map<string, bigint>();
  const exchangeNames = new Map(
    dexTargets(env).deployments.map((d) => [`${d.chain}/${d.protocol}/${d.version}`, d.exchangeName]),
  );
  const markets = lendingMarkets.filter((m) =>
    lsts.some(
      (l) =>
        l.chain === m.chain &&
        l.lendingMarkets.some(
          (x) => x.protocol === m.protocol && x.version === m.version && x.baseAsset === m.baseAsset,
        ),
    ),
  );

  const readRates = async (ctx: JobContext, needed: Map<string, Set<number>>) => {
    const out = new Map<string, bigint>();
    for (const [key, blocks] of needed) {
      const [chain, token] = key.split('/') as [string, string];
      for (const block of [...blocks].sort((a, b) => a - b)) {
        const k = rateKey(chain, token, block);
        const cached = rateCache.get(k);
        if (cached !== undefined) {
          out.set(k, cached);
          continue;
        }
        const [result] = await sourceOf(chain, ctx).multicall({
          contracts: [{ address: token as `0x${string}`, abi: STAKED_TOKEN_ABI, functionName: 'stEthPerToken' }],
          allowFailure: true,
          blockNumber: BigInt(block),
        });
        // A failed read (a node without that block's state) leaves the rate unknown: the figures of that block
        // become gaps rather than guesses.
        if (result?.status !== 'success') continue;
        const rate = result.result as bigint;
        if (rateCache.size > 10_000) rateCache.clear();
        rateCache.set(k, rate);
        out.set(k, rate);
      }
    }
    return out;
  };

  return [
    computeJob({
      name: LIQUID_STAKING_COMPUTATION,
      area: 'liquid-staking',
      description:
        'Liquid staking token exposure in lending markets and DEX pools (analytics and scores), published for the 6 liquid staking paths',
      // The inputs are the DEX snapshot heads and prices (through dex.compute's publication) and the lending
      // snapshots (through lending.compute's, published after each snapshot).
      inputs: async (ctx) => {
        const dex = new DexRepository(ctx.store.db);
        const heads: [string, number][] = [];
        for (const chain of chains) {
          const head = await dex.latestSnapshotBlock(chain);
          if (head) heads.push([chain, head.blockNumber]);
        }
        if (!heads.length) return wait('no DEX snapshot yet');
        const publications = new DatasetRepository(ctx.store.db);
        return {
          heads,
          dex: (await publications.latestPublication(DEX_COMPUTATION))?.version ?? null,
          lending: (await publications.latestPublication(LENDING_COMPUTATION))?.version ?? null,
        };
      },
      load: async (ctx) => {
        const db = ctx.store.db;
        const dex = new DexRepository(db);
        const heads: { chain: string; blockNumber: number; timestamp: number }[] = [];
        for (const chain of chains) {
          const head = await dex.latestSnapshotBlock(chain);
          if (head) heads.push({ chain, ...head });
        }
        if (!heads.length) return wait('no DEX snapshot yet');
        const asOf = heads.reduce((a, b) => (b.timestamp < a.timestamp ? b : a));
        const lending = new LendingRepository(db);
        const instants = historyInstants(asOf.timestamp);
        const lendingSnapshots = new Map<string, (MarketSnapshot | undefined)[]>();
        for (const m of markets) {
          const latest = await lending.latestSnapshot(m.chain, m.pool);
          const earlier = await lending.snapshotsAtOrBefore(m.chain, m.pool, instants.slice(1));
          lendingSnapshots.set(marketKey(m), [latest, ...earlier]);
        }
        // The DEX pools that hold each token, as the DEX area found them.
        const tokens: LiquidStakingToken[] = [];
        for (const l of lsts) {
          const pools = (await dex.pools(l.chain)).filter((p) => p.token0 === l.token || p.token1 === l.token);
          tokens.push({
            ...l,
            dexPools: pools.map((p) => ({ protocol: p.protocol, version: p.version, pool: p.address })),
          });
        }
        const from = asOf.timestamp - SWAP_HISTORY;
        const fromHour = Math.floor(from / 3600) * 3600 - 3600;
        const lstPools = new Set(tokens.flatMap((l) => l.dexPools.map((p) => `${l.chain}/${p.pool}`)));
        const own = (x: { chain: string; pool: string }) => lstPools.has(`${x.chain}/${x.pool}`);
        const base: Omit<LiquidStakingInput, 'exchangeRates'> & {
          pools: LiquidStakingInput['pools'][number][];
          tokens: LiquidStakingInput['tokens'][number][];
          snapshots: LiquidStakingInput['snapshots'][number][];
          swaps: LiquidStakingInput['swaps'][number][];
          syncs: LiquidStakingInput['syncs'][number][];
          prices: LiquidStakingInput['prices'][number][];
        } = {
          asOf: { blockNumber: asOf.blockNumber, timestamp: asOf.timestamp },
          liquidStaking: tokens,
          lending: markets,
          exchangeNames,
          pools: [],
          tokens: [],
          snapshots: [],
          swaps: [],
          syncs: [],
          prices: [],
          lendingSnapshots,
        };
        for (const head of heads) {
          base.pools.push(...(await dex.pools(head.chain)).filter((p) => lstPools.has(`${p.chain}/${p.address}`)));
          base.tokens.push(...(await dex.tokens(head.chain)));
          base.snapshots.push(...(await dex.snapshots(head.chain, head.blockNumber)).filter(own));
          base.swaps.push(...(await dex.swaps(head.chain, from, asOf.timestamp)).filter(own));
          base.syncs.push(...(await dex.syncs(head.chain, from, asOf.timestamp)).filter(own));
          base.prices.push(...(await dex.prices(head.chain, fromHour, asOf.timestamp)));
        }
        const exchangeRates = await readRates(ctx, exchangeRateBlocks(base));
        return { ...base, exchangeRates };
      },
      compute: computeLiquidStaking,
      documents: (output, input) => liquidStakingDocuments(output, input.asOf.timestamp),
      describe: (input) => `at block ${input.asOf.blockNumber}`,
    }),
  ];
}
