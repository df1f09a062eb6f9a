import { HOUR } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { REFERENCE_COINS } from '../../registry/tokens.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { DexReadModel, dexTargets } from '../dex/public.js';
import { chainSourceLabel, computeJob, DocumentSet, freshForEvery, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { snapshotDays } from '../kit/snapshot-schedule.js';
import { groupRecord, tokenomicsGapRecord, tokenomicsRecord } from './compute.js';
import { daySnapshots, dustThresholdRaw, tokenDays } from './days.js';
import { loadDexVolumeFacts } from './dex-facts.js';
import { type DexVolumeFacts, dexVolumeOf } from './dex-volume.js';
import { TokenomicsIngest, transfersKey } from './ingest.js';
import { type MarketFacts, marketDayAt, noMarket } from './market-days.js';
import { MARKET_EVERY_SECONDS, MarketIngest } from './market-ingest.js';
import { GLOBAL_ID, MarketRepository } from './market-repo.js';
import { RecordCache } from './record-cache.js';
import { loadTokenFacts, TokenomicsRepository } from './repo.js';
import { tokenomicsPaths } from './routes.js';
import { SUB_PATH_GROUP, TOKENOMICS_METHODOLOGY, type TokenomicsRecordPayload } from './schema.js';
import { dexPoolLabels, type TokenTarget, tokenomicsTargets, withPoolLabels } from './targets.js';

/** The tokenomics area's computation (its checkpoint and the datasets' `computation`). */
export const TOKENOMICS_COMPUTATION = 'tokenomics.compute';

/**
 * Without a market-data source (or a token without a CoinGecko id): the market figures are null with `no_data`
 * (core/gaps.ts has no word of its own for an unconfigured source; nothing was observed).
 */
const NO_MARKET = noMarket('no_data');

/** The stored readings that may stand for a token's record instants (the newest at or before each). */
async function loadMarketFacts(
  repo: MarketRepository,
  coingeckoId: string,
  instants: readonly number[],
): Promise<MarketFacts> {
  const at = async <T>(kind: 'coin' | 'chart' | 'global', id: string) => {
    const out = [];
    for (const t of instants) {
      const r = await repo.readingAt<T>(kind, id, t);
      if (r) out.push(r);
    }
    return out;
  };
  return {
    coin: await at('coin', coingeckoId),
    eth: await at('chart', REFERENCE_COINS.ETH),
    btc: await at('chart', REFERENCE_COINS.BTC),
    global: await at('global', GLOBAL_ID),
    exchanges: (await repo.exchanges()).map(({ id, name, centralized }) => ({ id, name, centralized })),
  };
}

/**
 * The tokenomics area's jobs (wiring only):
 * - `tokenomics.ingest` (every 30 s): each token's `Transfer`s into the holder ledger, and its snapshots (ingest.ts);
 * - `tokenomics.market` (hourly, with a CoinGecko source): the market readings of the tokens with a CoinGecko id
 *   (market-ingest.ts), one transaction per run;
 * - `tokenomics.compute`: each token's week (days.ts) → `tokenomicsRecord` → the seven paths, published when a
 *   token's newest snapshot or the newest market reading moved (the records are read at snapshots: an hourly cadence,
 *   not every block; each record's market figures are the reading standing for its instant, market-days.ts), or the
 *   DEX area's facts reached it (the on-chain DEX volume, dex-volume.ts, from the DEX area's read model).
 *   The DEX pools that pair a token, as the DEX area discovered them, are labelled `dex_pool` then (targets.ts).
 */
export function tokenomicsJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = tokenomicsTargets(env);
  if (!evm || !targets.length) return [];
  const ingest = new TokenomicsIngest(evm, targets);
  const coingecko = env.sources.get('coingecko');
  const withId = targets.filter((t) => t.coingeckoId);
  const market = coingecko && withId.length ? new MarketIngest(coingecko.client, withId) : undefined;
  const marketJobs: JobDef[] = market
    ? [
        {
          name: 'tokenomics.market',
          area: 'tokenomics',
          description: `Reads CoinGecko's market data of ${market.coinIds.join(', ')}, ETH, BTC and the global market`,
          everySeconds: MARKET_EVERY_SECONDS,
          maxAttempts: 3,
          backoffMs: 60_000,
          run: (ctx) => market.run(ctx),
        },
      ]
    : [];
  // Closed days' records between hourly runs (the whole ledger is not walked again for them).
  const closedDays = new RecordCache();
  const dexDeployments = dexTargets(env).deployments;
  return [
    {
      name: 'tokenomics.ingest',
      area: 'tokenomics',
      description: `Reads the Transfers, supply and vesting contracts of ${targets.map((t) => t.symbol).join(', ')}`,
      everySeconds: 30,
      maxAttempts: 5,
      backoffMs: 2000,
      run: (ctx) => ingest.run(ctx),
    },
    ...marketJobs,
    computeJob({
      name: TOKENOMICS_COMPUTATION,
      runAfter: ['tokenomics.ingest', ...marketJobs.map((j) => j.name)],
      area: 'tokenomics',
      description: 'Supply, holders, allocations and markets of protocol tokens, published for the 7 tokenomics paths',
      inputs: async (ctx) => {
        const repo = new TokenomicsRepository(ctx.store.db);
        const dex = new DexReadModel(ctx.store.db);
        const heads: [string, number][] = [];
        // Whether the DEX facts reach each token's newest snapshot: the running day's on-chain DEX volume is null
        // (no_data) until they do, and is published when they catch up.
        const dexReached: [string, boolean][] = [];
        // A pool the DEX area discovers pairing a token changes its labels: the records are computed again.
        const pools: [string, number][] = [];
        // The UTC days each token has a snapshot in: a past day's end taken by the backfill is what that day's
        // record waits for, and is published without pacing (`coverage`).
        const days: [string, number][] = [];
        for (const t of targets) {
          const times = await repo.snapshotTimes(t.chain, t.address);
          if (!times.length) continue;
          const head = Math.max(...times.map((s) => s.blockNumber));
          heads.push([t.protocol, head]);
          days.push([t.protocol, snapshotDays(times)]);
          dexReached.push([t.protocol, ((await dex.head(t.chain))?.blockNumber ?? -1) >= head]);
          pools.push([t.protocol, dexPoolLabels(t, await dex.pools(t.chain), dexDeployments, env.book.origin).length]);
        }
        if (!heads.length) return wait('no token snapshot yet');
        // A new market reading moves the inputs too (it is what the next records' market figures read).
        return market
          ? { heads, dexReached, pools, days, market: await new MarketRepository(ctx.store.db).newestFetch() }
          : { heads, dexReached, pools, days };
      },
      // Days covered, and tokens whose DEX facts reached their snapshot (the running day's DEX volume waits for it).
      coverage: (inputs) =>
        inputs.days.reduce((n, [, d]) => n + d, 0) + inputs.dexReached.filter(([, reached]) => reached).length,
      load: async (ctx) => {
        const repo = new TokenomicsRepository(ctx.store.db);
        const marketRepo = new MarketRepository(ctx.store.db);
        // The DEX area's facts, one read per chain and instant (the tokens of a chain share them).
        const dexByChain = new Map<string, Promise<DexVolumeFacts>>();
        const dexFacts = (chain: string, until: number) => {
          const key = `${chain}@${until}`;
          if (!dexByChain.has(key)) dexByChain.set(key, loadDexVolumeFacts(ctx.store.db, chain, until));
          return dexByChain.get(key)!;
        };
        const tokens: {
          target: TokenTarget;
          facts: NonNullable<Awaited<ReturnType<typeof loadTokenFacts>>>;
          start: number;
          market: MarketFacts | null;
          dex: DexVolumeFacts;
        }[] = [];
        const dex = new DexReadModel(ctx.store.db);
        for (const book of targets) {
          const pools = dexPoolLabels(book, await dex.pools(book.chain), dexDeployments, env.book.origin);
          const target = withPoolLabels(book, pools);
          const facts = await loadTokenFacts(repo, target.chain, target.address);
          const start = await readCheckpoint<{ timestamp?: number }>(ctx.store.db, `${transfersKey(target)}:start`);
          if (!facts) continue;
          const instants = daySnapshots(facts.snapshots).flatMap((d) => (d.snap ? [d.snap.timestamp] : []));
          const marketFacts =
            market && target.coingeckoId ? await loadMarketFacts(marketRepo, target.coingeckoId, instants) : null;
          const until = Math.max(...facts.snapshots.map((x) => x.timestamp));
          tokens.push({
            target,
            facts,
            start: start?.timestamp ?? 0,
            market: marketFacts,
            dex: await dexFacts(target.chain, until),
          });
        }
        return tokens.length ? { tokens } : wait('no token snapshot yet');
      },
      compute: ({ tokens }) =>
        tokens.map(({ target, facts, start, market: marketFacts, dex }) => {
          const dexVolume = dexVolumeOf(dex);
          const days = tokenDays({
            target,
            coingeckoId: target.coingeckoId ?? null,
            ledger: facts.ledger,
            startTimestamp: start,
            transfers: facts.transfers,
            snapshots: facts.snapshots,
            market: (asOf) => (marketFacts ? marketDayAt(marketFacts, asOf) : NO_MARKET),
            dexVolume: (at) => dexVolume({ token: target.address, ...at }),
            cached: (key) => closedDays.has(transfersKey(target), key),
          });
          const records: TokenomicsRecordPayload[] = closedDays.records(
            transfersKey(target),
            days,
            (d) => tokenomicsRecord(d.input),
            (d) =>
              tokenomicsGapRecord(
                {
                  token: {
                    address: target.address,
                    chain: target.chain,
                    coingeckoId: target.coingeckoId ?? null,
                    decimals: target.decimals,
                  },
                  day: d.day,
                  partial: d.partial,
                  asOf: d.asOf,
                  blockNumber: null,
                  dustThresholdRaw: dustThresholdRaw(target.decimals),
                },
                d.reason,
              ),
          );
          const asOf = days[0]?.kind === 'record' ? days[0].input.asOf : 0;
          return { protocol: target.protocol, chain: target.chain, asOf, records };
        }),
      documents: (outputs) =>
        outputs.flatMap(({ protocol, chain, asOf, records }) => {
          // Records are read at hourly snapshots: two missed hours and a margin before stale. A token's figures come
          // from its own chain (`meta.source` names it, not every chain the process reads).
          const docs = new DocumentSet(tokenomicsPaths, {
            asOf,
            freshFor: freshForEvery(HOUR),
            source: chainSourceLabel(env, chain),
          });
          const m = { methodology: TOKENOMICS_METHODOLOGY };
          docs.add('tokenomics.all', { protocol }, records, m);
          for (const [sub, group] of Object.entries(SUB_PATH_GROUP)) {
            docs.add(
              `tokenomics.${sub}`,
              { protocol },
              records.map((r) => groupRecord(r, group)),
              m,
            );
          }
          return docs.documents;
        }),
      describe: (input) => input.tokens.map((t) => `${t.target.symbol} at block ${t.facts.ledger.block}`).join(', '),
    }),
  ];
}
