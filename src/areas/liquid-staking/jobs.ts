import { parseAbi } from 'viem';
import { compilePath, documentPath } from '../../http/route-table.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import type { EvmChainEndpoint } from '../../sources/environment.js';
import { createEvmSource, type EvmSource } from '../../sources/evm/index.js';
import { type DatasetDocument, DatasetRepository } from '../../store/datasets.js';
import { DexRepository } from '../dex/repo.js';
import type { MarketSnapshot } from '../lending/facts.js';
import { LendingRepository } from '../lending/repo.js';
import { ComputedInputs, publishComputation } from '../publication.js';
import type { AreaEnv } from '../types.js';
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

/**
 * `liquid-staking.compute`: reads what the DEX area (pools, snapshots, swaps, syncs, hourly prices) and the lending
 * area (market snapshots) stored, reads each liquid staking token's exchange rate (`stEthPerToken()`) at the blocks
 * those describe, and publishes the 6 liquid staking paths at once. It ingests nothing itself.
 */
export const LIQUID_STAKING_COMPUTATION = 'liquid-staking.compute';
const COMPUTED_KEY = 'liquid-staking:computed';
/** As the DEX area: half an hour without a newer block means the chain or the RPC stalled. */
const FRESH_FOR_SECONDS = 1800;
const SOURCE = 'DEX and lending facts of this service (chain logs and state) and stEthPerToken() read by eth_call';

export const STAKED_TOKEN_ABI = parseAbi(['function stEthPerToken() view returns (uint256)']);

const compiled = new Map(liquidStakingPaths.map((def) => [def.id, compilePath(def)]));
function pathOf(id: string, values: Record<string, string>): string {
  return documentPath(compiled.get(id)!, values);
}

/** The documents of one computation, keyed by canonical path. */
export function liquidStakingDocuments(output: LiquidStakingOutput, asOf: number): DatasetDocument[] {
  const docs: DatasetDocument[] = [];
  const add = (path: string, data: unknown, docAsOf: number, methodology?: string) =>
    docs.push({
      path,
      data,
      asOf: docAsOf,
      source: SOURCE,
      freshFor: FRESH_FOR_SECONDS,
      ...(methodology ? { methodology } : {}),
    });
  add(pathOf('liquid-staking.available-lending-markets-exposure', {}), output.availableLending, asOf);
  add(pathOf('liquid-staking.available-dexes-exposure', {}), output.availableDexes, asOf);
  for (const [pool, x] of output.poolAnalytics) {
    add(pathOf('liquid-staking.pool-analytics-in-dex', { pool_address: pool }), x.data, x.asOf);
  }
  for (const [pool, x] of output.poolScores) {
    add(pathOf('liquid-staking.dex-pool-scores', { pool_address: pool }), x.data, x.asOf, x.data[0]?.methodology);
  }
  for (const m of output.lending) {
    const values = {
      chain: m.chain,
      protocol: m.protocol,
      version: m.version,
      base_asset: m.baseAsset,
      flag: String(m.flag),
    };
    add(pathOf('liquid-staking.asset-analytics-in-lending', values), m.analytics, m.asOf);
    add(pathOf('liquid-staking.exposure-in-lending', values), m.scores, m.asOf, m.scores[0]?.methodology);
  }
  return docs;
}

export function liquidStakingJobs(env: AreaEnv): JobDef[] {
  const lsts = env.evm.liquidStaking;
  if (!lsts.length) return [];
  const chains = [...new Set(lsts.map((l) => l.chain))].filter((c) => env.evm.chains.some((e) => e.id === c));
  if (!chains.length) return [];
  const sources = new Map<string, EvmSource>();
  const sourceOf = (chain: string, ctx: JobContext): EvmSource => {
    let s = sources.get(chain);
    if (!s) {
      const e: EvmChainEndpoint = env.evm.chains.find((x) => x.id === chain)!;
      s = createEvmSource(
        {
          id: e.id,
          rpcUrl: e.rpcUrl,
          finalityDepth: e.finalityDepth,
          ...(e.maxBlockRange ? { maxBlockRange: e.maxBlockRange } : {}),
          ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
        },
        { log: ctx.log },
      );
      sources.set(chain, s);
    }
    return s;
  };
  /** Exchange rates already read: a block's state does not change (below the finality depth it is final). */
  const rateCache = new Map<string, bigint>();
  const exchangeNames = new Map(env.evm.dex.map((d) => [`${d.chain}/${d.protocol}/${d.version}`, d.exchangeName]));
  const lendingMarkets = env.evm.lending.filter((m) =>
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

  const computeJob: JobDef = {
    name: LIQUID_STAKING_COMPUTATION,
    area: 'liquid-staking',
    description:
      'Liquid staking token exposure in lending markets and DEX pools (analytics and scores), published for the 6 liquid staking paths',
    // Often: a run whose inputs (DEX and lending publications) did not change reads two rows and returns.
    everySeconds: 10,
    async run(ctx) {
      const db = ctx.store.db;
      const dex = new DexRepository(db);
      const heads: { chain: string; blockNumber: number; timestamp: number }[] = [];
      for (const chain of chains) {
        const head = await dex.latestSnapshotBlock(chain);
        if (head) heads.push({ chain, ...head });
      }
      if (!heads.length) return 'no DEX snapshot yet';
      const asOf = heads.reduce((a, b) => (b.timestamp < a.timestamp ? b : a));
      // The inputs are the DEX snapshot heads and prices (through dex.compute's publication) and the lending
      // snapshots (through lending.compute's, published after each snapshot).
      const computed = new ComputedInputs(db, COMPUTED_KEY);
      const publications = new DatasetRepository(db);
      const inputsKey = {
        heads: heads.map((h) => [h.chain, h.blockNumber]),
        dex: (await publications.latestPublication('dex.compute'))?.version ?? null,
        lending: (await publications.latestPublication('lending.compute'))?.version ?? null,
      };
      if (await computed.unchanged(inputsKey)) {
        return `up to date at block ${asOf.blockNumber}`;
      }

      const lending = new LendingRepository(db);
      const instants = historyInstants(asOf.timestamp);
      const lendingSnapshots = new Map<string, (MarketSnapshot | undefined)[]>();
      for (const m of lendingMarkets) {
        const latest = await lending.latestSnapshot(m.chain, m.pool);
        const earlier = await lending.snapshotsAtOrBefore(m.chain, m.pool, instants.slice(1));
        lendingSnapshots.set(marketKey(m), [latest, ...earlier]);
      }
      const base: Omit<LiquidStakingInput, 'exchangeRates'> = {
        asOf: { blockNumber: asOf.blockNumber, timestamp: asOf.timestamp },
        liquidStaking: lsts,
        lending: lendingMarkets,
        exchangeNames,
        pools: [],
        tokens: [],
        snapshots: [],
        swaps: [],
        syncs: [],
        prices: [],
        lendingSnapshots,
      };
      const from = asOf.timestamp - SWAP_HISTORY;
      const fromHour = Math.floor(from / 3600) * 3600 - 3600;
      const lstPools = new Set(lsts.flatMap((l) => l.dexPools.map((p) => `${l.chain}/${p.pool}`)));
      const mutable = base as { -readonly [K in keyof typeof base]: (typeof base)[K] } & {
        pools: LiquidStakingInput['pools'][number][];
        tokens: LiquidStakingInput['tokens'][number][];
        snapshots: LiquidStakingInput['snapshots'][number][];
        swaps: LiquidStakingInput['swaps'][number][];
        syncs: LiquidStakingInput['syncs'][number][];
        prices: LiquidStakingInput['prices'][number][];
      };
      for (const head of heads) {
        const own = (x: { chain: string; pool: string }) => lstPools.has(`${x.chain}/${x.pool}`);
        mutable.pools.push(...(await dex.pools(head.chain)).filter((p) => lstPools.has(`${p.chain}/${p.address}`)));
        mutable.tokens.push(...(await dex.tokens(head.chain)));
        mutable.snapshots.push(...(await dex.snapshots(head.chain, head.blockNumber)).filter(own));
        mutable.swaps.push(...(await dex.swaps(head.chain, from, asOf.timestamp)).filter(own));
        mutable.syncs.push(...(await dex.syncs(head.chain, from, asOf.timestamp)).filter(own));
        mutable.prices.push(...(await dex.prices(head.chain, fromHour, asOf.timestamp)));
      }
      const exchangeRates = await readRates(ctx, exchangeRateBlocks(base));
      const output = computeLiquidStaking({ ...base, exchangeRates });
      const documents = liquidStakingDocuments(output, asOf.timestamp);
      const version = await publishComputation(ctx, {
        computation: LIQUID_STAKING_COMPUTATION,
        area: 'liquid-staking',
        documents,
        inputs: { gate: computed, value: inputsKey },
      });
      return `published ${documents.length} documents (version ${version}) at block ${asOf.blockNumber}`;
    },
  };
  return [computeJob];
}
