/**
 * The tokenomics computation on a synthetic 100,000-holder ledger (issue 28 leftovers, item 4): how long the hourly
 * `tokenomics.compute` takes to load a token's facts (`loadTokenFacts`: the whole ledger, the week's transfers and
 * snapshots) and compute its 7 records (`tokenDays` → `tokenomicsRecord`), the first run of a process and the next
 * (closed days from `RecordCache`). SQLite in a temporary directory.
 *
 *   node --import tsx bench/tokenomics/compute.ts [-- --holders 100000 --transfers 40000 --runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { areaMigrations } from '../../src/areas/index.js';
import { tokenomicsRecord } from '../../src/areas/tokenomics/compute.js';
import { tokenDays } from '../../src/areas/tokenomics/days.js';
import type { TransferFact } from '../../src/areas/tokenomics/facts.js';
import { ZERO_ADDRESS } from '../../src/areas/tokenomics/ledger.js';
import { RecordCache } from '../../src/areas/tokenomics/record-cache.js';
import { applyTransferRange, loadTokenFacts, TokenomicsRepository } from '../../src/areas/tokenomics/repo.js';
import type { TokenTarget } from '../../src/areas/tokenomics/targets.js';
import { DAY, startOfUtcDay } from '../../src/core/time.js';
import { openStore } from '../../src/store/db.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const HOLDERS = arg('holders', 100_000);
const TRANSFERS = arg('transfers', 40_000);
const RUNS = arg('runs', 3);
const TOKEN = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';
const CHAIN = 'ethereum';
const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const target: TokenTarget = {
  chain: CHAIN,
  protocol: 'uniswap',
  symbol: 'UNI',
  address: TOKEN,
  decimals: 18,
  startBlock: 1,
  labels: [],
  declaration: null,
} as unknown as TokenTarget;

/** A deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-bench-tok-'));
  const store = openStore({ sqliteFile: path.join(dir, 'bench.sqlite'), migrations: areaMigrations() });
  try {
    await store.migrate();
    const random = rng(28);
    const head = startOfUtcDay(Date.UTC(2026, 10, 29) / 1000) + 10 * 3600;
    // Blocks every 12 s over 9 days; the holders' mints in block 1 (9 days back), then TRANSFERS among them.
    const first = head - 9 * DAY;
    const blockOf = (t: number) => 1 + Math.floor((t - first) / 12);
    const unit = 10n ** 18n;
    const mints: TransferFact[] = Array.from({ length: HOLDERS }, (_, i) => ({
      blockNumber: 1,
      logIndex: i,
      txHash: `0x${i.toString(16)}`,
      from: ZERO_ADDRESS,
      to: addr(i + 1),
      // Pareto-like: a few large holders, many small.
      value: BigInt(Math.floor(1e6 / (1 + random() * 999) ** 1.5)) * unit + 1n,
      timestamp: first,
    }));
    const moves: TransferFact[] = [];
    for (let k = 0; k < TRANSFERS; k++) {
      const t = first + 60 + Math.floor(((head - first - 60) * k) / TRANSFERS);
      moves.push({
        blockNumber: blockOf(t),
        logIndex: k,
        txHash: `0x${(HOLDERS + k).toString(16)}`,
        from: addr(1 + Math.floor(random() * HOLDERS)),
        to: addr(1 + Math.floor(random() * HOLDERS * 1.2)), // some new holders
        value: 1n,
        timestamp: t,
      });
    }
    const t0 = performance.now();
    await store.db
      .transaction()
      .execute((trx) =>
        applyTransferRange(trx, { chain: CHAIN, token: TOKEN, startBlock: 1, from: 1, toBlock: 1, transfers: mints }),
      );
    await store.db.transaction().execute((trx) =>
      applyTransferRange(trx, {
        chain: CHAIN,
        token: TOKEN,
        startBlock: 1,
        from: 2,
        toBlock: blockOf(head),
        transfers: moves,
      }),
    );
    const repo = new TokenomicsRepository(store.db);
    // Hourly snapshots over the 9 days (what the ingest keeps).
    const supply = mints.reduce((s, m) => s + m.value, 0n);
    for (let t = first + 3599; t <= head; t += 3600)
      await repo.saveSnapshot({
        chain: CHAIN,
        token: TOKEN,
        blockNumber: blockOf(t),
        timestamp: t,
        totalSupply: supply,
        replayedSupply: supply,
        sample: [],
        contracts: [],
      });
    console.log(`setup: ${HOLDERS} holders, ${TRANSFERS} transfers, ${Math.round(performance.now() - t0)} ms`);
    // Run 1 computes every day (a process's first computation); the next reuse the closed days (record-cache.ts).
    const cache = new RecordCache();
    for (let run = 1; run <= RUNS; run++) {
      const a = performance.now();
      const facts = await loadTokenFacts(repo, CHAIN, TOKEN);
      const b = performance.now();
      const days = tokenDays({
        target,
        coingeckoId: null,
        ledger: facts!.ledger,
        startTimestamp: first,
        transfers: facts!.transfers,
        snapshots: facts!.snapshots,
        market: () => ({ market: null, tickers: null, exchanges: [] }),
        dexVolume: () => ({ value: null, reason: 'no_members', detail: 'no pool' }),
        cached: (key) => cache.has(TOKEN, key),
      });
      const c = performance.now();
      const records = cache.records(
        TOKEN,
        days,
        (d) => tokenomicsRecord(d.input),
        () => {
          throw new Error('a gap day');
        },
      );
      const e = performance.now();
      const holders = records.map((r) => r?.tokenomics_metrics?.num_token_holders ?? null);
      const cached = days.filter((d) => d.kind === 'cached').length;
      console.log(
        `run ${run}: load ${Math.round(b - a)} ms (${facts!.ledger.balances.size} balances, ` +
          `${facts!.transfers.length} transfers), days ${Math.round(c - b)} ms, records ${Math.round(e - c)} ms, ` +
          `total ${Math.round(e - a)} ms; ${cached} closed days cached; holders ${holders.join(' ')}`,
      );
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
