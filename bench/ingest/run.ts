/**
 * Ingest benchmark, in one run:
 *
 * 1. A large sandbox world (default: 8 days at scale 4, ≥ 100,000 swaps), built once and kept in
 *    `.bench/ingest-world-<seed>-<days>-<scale>/` so later runs skip the simulation (`--fresh` rebuilds it).
 * 2. The machine's limit: raw `eth_getLogs` of every pool event plus viem decoding, nothing stored.
 * 3. The engine: `dex.ingest` (logs, tx senders, block headers, facts and checkpoints in SQLite, token metadata,
 *    a state snapshot) on an empty store; events per second from RPC to stored facts.
 * 4. Start-up: `protoscore start` (the built CLI) on a fresh data directory with the default world, timed to the
 *    first served pool score; then stopped and started again, timed the same way.
 *
 *   npm run bench:ingest -- [--scale 4] [--days 8] [--seed 1] [--fresh] [--skip-startup | --startup-only]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { decodeEventLog } from 'viem';
import { POOL_TOPICS, V2_PAIR_ABI, V3_POOL_ABI } from '../../src/areas/dex/events.js';
import { dexArea } from '../../src/areas/dex/index.js';
import type { DexTables } from '../../src/areas/dex/public.js';
import { areaMigrations } from '../../src/areas/index.js';
import { configWith, loadConfig } from '../../src/config/index.js';
import { areaEnv, openSources } from '../../src/runtime/index.js';
import { addressBookFromManifest } from '../../src/sandbox/world/address-book.js';
import { openWorld } from '../../src/sandbox/world/world.js';
import { openStore } from '../../src/store/db.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { values: flags } = parseArgs({
  options: {
    scale: { type: 'string', default: '4' },
    days: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    fresh: { type: 'boolean', default: false },
    'skip-startup': { type: 'boolean', default: false },
    'startup-only': { type: 'boolean', default: false },
  },
});
const scale = Number(flags.scale);
const days = Number(flags.days);
const seed = Number(flags.seed);
/** A fixed "now", so the big world is the same chain on every run and machine. */
const NOW_MS = Date.UTC(2026, 10, 20, 14, 0, 0);
const log = pino({ level: 'warn' });
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function buildWorld() {
  const dataDir = path.join(ROOT, '.bench', `ingest-world-${seed}-${days}-${scale}`);
  if (flags.fresh) rmSync(dataDir, { recursive: true, force: true });
  const existed = existsSync(path.join(dataDir, 'sandbox'));
  mkdirSync(dataDir, { recursive: true });
  const started = Date.now();
  let lastTenth = -1;
  const world = await openWorld({
    dataDir,
    seed,
    days,
    blockSeconds: 3600,
    scale,
    log,
    clock: { nowMs: () => NOW_MS },
    live: false,
    onProgress: (done, total) => {
      const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
      if (tenth !== lastTenth) process.stderr.write(`world: ${tenth * 10} %\n`);
      lastTenth = tenth;
    },
  });
  await world.caughtUp;
  return { world, ms: Date.now() - started, reused: existed };
}

async function rawBaseline(rpcUrl: string, pools: readonly `0x${string}`[], head: number) {
  const started = performance.now();
  let logs = 0;
  // The same block span per call as the engine's default window; plain fetch, as the engine's own RPC client
  // does (viem's HTTP transport caps response bodies at 10 MB, which one range of this world exceeds).
  for (let from = 0; from <= head; from += 2000) {
    const to = Math.min(head, from + 1999);
    const filter = {
      address: [...pools],
      topics: [[...POOL_TOPICS]],
      fromBlock: `0x${from.toString(16)}`,
      toBlock: `0x${to.toString(16)}`,
    };
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] }),
    });
    const body = (await res.json()) as {
      result: { topics: [`0x${string}`, ...`0x${string}`[]]; data: `0x${string}` }[];
    };
    for (const l of body.result) {
      try {
        decodeEventLog({ abi: V3_POOL_ABI, data: l.data, topics: l.topics });
      } catch {
        decodeEventLog({ abi: V2_PAIR_ABI, data: l.data, topics: l.topics });
      }
      logs++;
    }
  }
  return { logs, ms: performance.now() - started };
}

async function engineRun(world: Awaited<ReturnType<typeof buildWorld>>['world']) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'protoscore-bench-ingest-'));
  const store = openStore({ sqliteFile: path.join(dir, 'bench.sqlite'), migrations: areaMigrations() });
  await store.migrate();
  // What a worker configured with the world's RPC URL and address book reads.
  const config = configWith(loadConfig({}), { RPC_URL_ETHEREUM: world.rpcUrl });
  const env = areaEnv(
    config,
    openSources(config, { role: 'worker', logger: log, labels: new Map() }),
    addressBookFromManifest(world.manifest),
  );
  const job = dexArea.jobs(env).find((j) => j.name === 'dex.ingest')!;
  const started = performance.now();
  const summary = await job.run({
    store,
    clock: { nowMs: () => NOW_MS },
    log,
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => {},
  });
  const ms = performance.now() - started;
  const count = async (table: 'dex_swaps' | 'dex_syncs' | 'dex_liquidity' | 'dex_pools') =>
    Number(
      (
        await store.db
          .withTables<DexTables>()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const facts = {
    swaps: await count('dex_swaps'),
    syncs: await count('dex_syncs'),
    liquidity: await count('dex_liquidity'),
    pools: await count('dex_pools'),
  };
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms, facts, summary };
}

/** What a first user waits for after `npm start`, in the order it usually comes. */
const ALL_MILESTONES = [
  'pool score',
  'lending score, 7 days',
  'development ranking',
  'blockchain, 4 chains',
  'stablecoins',
  'tokenomics, 3 tokens',
] as const;
type Milestone = (typeof ALL_MILESTONES)[number];
/** The stablecoin documents are waited for when the world has MakerDAO and Liquity (`SANDBOX_STABLECOINS`, default on). */
const withStablecoins = process.env.SANDBOX_STABLECOINS !== 'false';
const MILESTONES = ALL_MILESTONES.filter((m) => m !== 'stablecoins' || withStablecoins);

/**
 * Starts the built CLI and times, from the spawn, the first 200 of a DEX pool score, of a lending market score
 * whose seven daily records all have a score (the past day ends read from the chain's state), of the
 * development ranking, and of the blockchain documents of all four chains (Ethereum, Bitcoin, Optimism, Arbitrum)
 * with yesterday's record counted, and (with MakerDAO and Liquity in the world) of both stablecoin protocols' weekly
 * documents and liquidity scores with yesterday's record. Returns the child for stopping.
 */
/** Where a start's time went, from its JSON log lines: the world's catch-up, then per area its jobs' run time. */
interface Breakdown {
  /** The world caught up with the clock (history simulated), from the spawn. */
  simulatedMs?: number;
  /** The world's own figure for its catch-up (`ms` of its log line). */
  simulateMs?: number;
  /** Per area: seconds its ingest (and other non-compute) jobs and its compute jobs ran, first publication. */
  areas: Record<string, { ingestS: number; computeS: number; runs: number; firstPublishedMs?: number }>;
}

/** The area a job belongs to, from its name (`dex.ingest`, `prices.hourly` of the DEX, `blockchain.bitcoin.compute`). */
const areaOfJob = (job: string) => {
  const head = job.split('.')[0]!;
  return head === 'prices' ? 'dex' : head;
};

async function timedStart(
  dataDir: string,
  port: number,
): Promise<{ ms: Partial<Record<Milestone, number>>; child: ChildProcess; breakdown: Breakdown }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['bin/protoscore.js', 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      DATABASE_URL: '',
      REDIS_URL: '',
      // The quickstart token's limit (600 a minute by default) is spent in seconds by the polling below.
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let pending = '';
  const breakdown: Breakdown = { areas: {} };
  const onLine = (line: string) => {
    if (!line.startsWith('{')) return;
    let entry: { msg?: string; job?: string; seconds?: number; summary?: string; ms?: number };
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    if (entry.msg === 'sandbox: caught up with the clock' && breakdown.simulatedMs === undefined) {
      breakdown.simulatedMs = Date.now() - started;
      breakdown.simulateMs = entry.ms;
    }
    if (entry.msg === 'job finished' && entry.job) {
      const name = areaOfJob(entry.job);
      breakdown.areas[name] ??= { ingestS: 0, computeS: 0, runs: 0 };
      const area = breakdown.areas[name]!;
      area.runs++;
      if (entry.job.endsWith('.compute')) area.computeS += entry.seconds ?? 0;
      else area.ingestS += entry.seconds ?? 0;
      if (entry.job.endsWith('.compute') && entry.summary?.startsWith('published') && !area.firstPublishedMs)
        area.firstPublishedMs = Date.now() - started;
    }
  };
  child.stdout!.on('data', (c: Buffer) => {
    const text = c.toString();
    out += text;
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  const ms: Partial<Record<Milestone, number>> = {};
  const base = `http://127.0.0.1:${port}`;
  // A throttled check would read as "not served yet" until the rate window resets (a minute): the child runs with a
  // limit the polling never reaches, and any 429 is counted and reported rather than timed.
  let throttled = 0;
  const get = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    if (res.status === 429) throttled++;
    return res;
  };
  const reached: Record<Milestone, (headers: Record<string, string>) => Promise<boolean>> = {
    'pool score': async (headers) => {
      const dexes = await get(`${base}/data/liquidity/dex/available-dexes`, { headers });
      if (dexes.status !== 200) return false;
      const d = ((await dexes.json()) as { data: { chain: string; protocol: string; version: string }[] }).data[0]!;
      const pools = await get(`${base}/data/liquidity/dex/available-pools/${d.chain}/${d.protocol}/${d.version}/1/0`, {
        headers,
      });
      const pool = ((await pools.json()) as { data: { pool_address: string }[] }).data[0]!.pool_address;
      return (await get(`${base}/scores/liquidity/dex/pool-score/${pool}`, { headers })).status === 200;
    },
    'lending score, 7 days': async (headers) => {
      const markets = await get(`${base}/data/liquidity/lending/available-markets`, { headers });
      if (markets.status !== 200) return false;
      const m = (
        (await markets.json()) as {
          data: { chain: string; protocol: string; version: string; base_asset_symbol: string }[];
        }
      ).data[0]!;
      const path = [m.chain, m.protocol, m.version, m.base_asset_symbol].map((x) => x.toLowerCase()).join('/');
      const res = await get(`${base}/scores/liquidity/lending/protocol-score/${path}`, { headers });
      if (res.status !== 200) return false;
      const records = ((await res.json()) as { data: { score: number | null }[] }).data;
      return records.length === 7 && records.every((r) => r.score !== null);
    },
    'development ranking': async (headers) => (await get(`${base}/scores/development`, { headers })).status === 200,
    'blockchain, 4 chains': async (headers) => {
      for (const chain of ['ethereum', 'bitcoin', 'optimism', 'arbitrum']) {
        const res = await get(`${base}/data/blockchain/${chain}`, { headers });
        if (res.status !== 200) return false;
        const records = ((await res.json()) as { data: Record<string, unknown>[] }).data;
        // Yesterday's record, whole: Ethereum's and Bitcoin's nest their transaction statistics.
        const y = records[1] as { tx_count?: number | null; transaction_statistics?: { tx_count: number | null } };
        if ((y?.transaction_statistics?.tx_count ?? y?.tx_count ?? null) === null) return false;
      }
      return true;
    },
    stablecoins: async (headers) => {
      for (const path of ['/data/stablecoin/makerdao', '/data/stablecoin/liquity']) {
        const res = await get(`${base}${path}`, { headers });
        if (res.status !== 200) return false;
        const records = ((await res.json()) as { data: { total_debt: number | null }[] }).data;
        if ((records[1]?.total_debt ?? null) === null) return false;
      }
      const scores = await get(`${base}/scores/liquidity-stablecoin-all-markets`, { headers });
      return scores.status === 200;
    },
    // Every tokenomics token's all-groups document with yesterday's record read at a block (its day-end snapshot).
    'tokenomics, 3 tokens': async (headers) => {
      for (const protocol of ['uniswap', 'aave', 'chainlink']) {
        const res = await get(`${base}/data/tokenomics/${protocol}`, { headers });
        if (res.status !== 200) return false;
        const records = ((await res.json()) as { data: { block_number: number | null }[] }).data;
        if ((records[1]?.block_number ?? null) === null) return false;
      }
      return true;
    },
  };
  const deadline = started + 30 * 60_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const token = /Bearer (ps_[A-Za-z0-9_-]+)/.exec(out)?.[1];
    if (!token) continue;
    const headers = { authorization: `Bearer ${token}` };
    for (const milestone of MILESTONES) {
      if (ms[milestone] !== undefined) continue;
      try {
        if (await reached[milestone](headers)) ms[milestone] = Date.now() - started;
      } catch {
        // not listening yet
      }
    }
    if (MILESTONES.every((m) => ms[m] !== undefined)) {
      if (throttled) throw new Error(`${throttled} checks were throttled (429): the times are not what a user waits`);
      return { ms, child, breakdown };
    }
  }
  child.kill('SIGKILL');
  throw new Error(`within 30 minutes, only: ${JSON.stringify(ms)}`);
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const lines: string[] = [];
const measured: Record<string, unknown> = {};
if (!flags['startup-only']) {
  const { world, ms: worldMs, reused } = await buildWorld();
  const head = await world.head();
  const pools = world.manifest.pools.map((p) => p.address.toLowerCase() as `0x${string}`);
  const raw = await rawBaseline(world.rpcUrl, pools, head);
  const engine = await engineRun(world);
  await world.stop();
  Object.assign(measured, { head, raw, engine });

  const engineLogs = engine.facts.swaps + engine.facts.syncs + engine.facts.liquidity;
  const rawRate = raw.logs / (raw.ms / 1000);
  const engineRate = engineLogs / (engine.ms / 1000);
  lines.push(
    `world: seed ${seed}, ${days} days, scale ${scale}: ${head} blocks, ${fmt(engine.facts.swaps)} swaps, ${fmt(raw.logs)} pool events, ${engine.facts.pools} pools (${reused ? 'reused' : `built in ${seconds(worldMs)}`})`,
    `raw eth_getLogs + decode (no store): ${fmt(raw.logs)} events in ${seconds(raw.ms)} = ${fmt(rawRate)} events/s`,
    `dex.ingest to SQLite (senders, headers, facts, checkpoints, tokens, snapshot): ${fmt(engineLogs)} events in ${seconds(engine.ms)} = ${fmt(engineRate)} events/s (${(engineRate / rawRate).toFixed(2)} of raw)`,
  );
}

if (!flags['skip-startup']) {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'protoscore-bench-start-'));
  const port = 18_000 + Math.floor(Math.random() * 1000);
  const first = await timedStart(dataDir, port);
  await stop(first.child);
  const second = await timedStart(dataDir, port);
  await stop(second.child);
  rmSync(dataDir, { recursive: true, force: true });
  Object.assign(measured, {
    firstStart: first.ms,
    secondStart: second.ms,
    firstStartBreakdown: first.breakdown,
    loadAverage: os.loadavg(),
  });
  const each = (x: Partial<Record<Milestone, number>>) =>
    MILESTONES.map((m) => `${m} ${seconds(x[m] ?? Number.NaN)}`).join(', ');
  const b = first.breakdown;
  const areas = Object.entries(b.areas)
    .sort(([, x], [, y]) => (x.firstPublishedMs ?? Infinity) - (y.firstPublishedMs ?? Infinity))
    .map(
      ([area, a]) =>
        `${area}: ingest ${a.ingestS.toFixed(1)} s, compute ${a.computeS.toFixed(1)} s over ${a.runs} runs` +
        (a.firstPublishedMs === undefined ? '' : `, first published at ${seconds(a.firstPublishedMs)}`),
    );
  lines.push(
    `npm start on a fresh data directory (default world) → first served: ${each(first.ms)}`,
    `first start, where the time went: world simulated and caught up at ${seconds(b.simulatedMs ?? Number.NaN)} ` +
      `(catch-up ${seconds(b.simulateMs ?? Number.NaN)}); per area, job run time until every path was served ` +
      `(jobs overlap on the job thread): ${areas.join('; ')}`,
    `second start on the same data directory → served: ${each(second.ms)}`,
    `load average at the end (1, 5, 15 min): ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')}`,
  );
}

const cpu = os.cpus();
const command = flags['startup-only']
  ? `${withStablecoins ? '' : 'SANDBOX_STABLECOINS=false '}npm run bench:ingest -- --startup-only`
  : `npm run bench:ingest -- --scale ${scale} --days ${days} --seed ${seed}`;
const header = `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu.length} × ${cpu[0]?.model.trim()}, Node ${process.version}; \`${command}\``;
process.stdout.write(`${header}\n${lines.map((l) => `- ${l}`).join('\n')}\n`);
mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
writeFileSync(
  path.join(ROOT, '.bench', `ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
  JSON.stringify({ header, seed, days, scale, ...measured, lines }, null, 2),
);
