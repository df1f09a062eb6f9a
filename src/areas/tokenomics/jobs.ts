import { HOUR } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { chainSourceLabel, computeJob, DocumentSet, freshForEvery, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { groupRecord, tokenomicsGapRecord, tokenomicsRecord } from './compute.js';
import { dustThresholdRaw, type MarketDay, tokenDays } from './days.js';
import { TokenomicsIngest, transfersKey } from './ingest.js';
import { RecordCache } from './record-cache.js';
import { loadTokenFacts, TokenomicsRepository } from './repo.js';
import { tokenomicsPaths } from './routes.js';
import { SUB_PATH_GROUP, TOKENOMICS_METHODOLOGY, type TokenomicsRecordPayload } from './schema.js';
import { type TokenTarget, tokenomicsTargets } from './targets.js';

/** The tokenomics area's computation (its checkpoint and the datasets' `computation`). */
export const TOKENOMICS_COMPUTATION = 'tokenomics.compute';

/** Without a market-data source: the market figures are null with this reason. */
const NO_MARKET: MarketDay = {
  market: null,
  marketGapReason: 'no_data',
  tickers: null,
  tickersGapReason: 'no_data',
  exchanges: [],
};

/**
 * The tokenomics area's jobs (wiring only):
 * - `tokenomics.ingest` (every 30 s): each token's `Transfer`s into the holder ledger, and its snapshots (ingest.ts);
 * - `tokenomics.compute`: each token's week (days.ts) → `tokenomicsRecord` → the seven paths, published when a
 *   token's newest snapshot moved (the records are read at snapshots: an hourly cadence, not every block).
 */
export function tokenomicsJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = tokenomicsTargets(env);
  if (!evm || !targets.length) return [];
  const ingest = new TokenomicsIngest(evm, targets);
  // Closed days' records between hourly runs (the whole ledger is not walked again for them).
  const closedDays = new RecordCache();
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
    computeJob({
      name: TOKENOMICS_COMPUTATION,
      runAfter: ['tokenomics.ingest'],
      area: 'tokenomics',
      description: 'Supply, holders, allocations and markets of protocol tokens, published for the 7 tokenomics paths',
      inputs: async (ctx) => {
        const repo = new TokenomicsRepository(ctx.store.db);
        const heads: [string, number][] = [];
        for (const t of targets) {
          const times = await repo.snapshotTimes(t.chain, t.address);
          if (times.length) heads.push([t.protocol, Math.max(...times.map((s) => s.blockNumber))]);
        }
        return heads.length ? { heads } : wait('no token snapshot yet');
      },
      load: async (ctx) => {
        const repo = new TokenomicsRepository(ctx.store.db);
        const tokens: {
          target: TokenTarget;
          facts: NonNullable<Awaited<ReturnType<typeof loadTokenFacts>>>;
          start: number;
        }[] = [];
        for (const target of targets) {
          const facts = await loadTokenFacts(repo, target.chain, target.address);
          const start = await readCheckpoint<{ timestamp?: number }>(ctx.store.db, `${transfersKey(target)}:start`);
          if (facts) tokens.push({ target, facts, start: start?.timestamp ?? 0 });
        }
        return tokens.length ? { tokens } : wait('no token snapshot yet');
      },
      compute: ({ tokens }) =>
        tokens.map(({ target, facts, start }) => {
          const days = tokenDays({
            target,
            coingeckoId: null,
            ledger: facts.ledger,
            startTimestamp: start,
            transfers: facts.transfers,
            snapshots: facts.snapshots,
            market: () => NO_MARKET,
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
                    coingeckoId: null,
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
