/**
 * Soak benchmark (issue 31, "flat over days"): the embedded service (`protoscore start`, SQLite and the sandbox in
 * live mode) left running with a steady trickle of API requests, sampled every minute.
 *
 *   npm run bench:soak -- [--minutes 120] [--block-seconds 1] [--rps 2] [--sample-seconds 60] [--data-dir DIR]
 *                         [--out FILE] [--keep] [--cpu-prof DIR]
 *
 * It starts the built CLI (`npm run build` first; `npm ci` does it) on a fresh data directory (`.bench/soak-<time>`,
 * removed at the end unless `--keep` or `--data-dir`), waits for `/ready`, then for `--minutes` of wall time sends
 * `--rps` requests a second (0: none, a service at rest), round robin over a set of documents of every computed area (found through the API's
 * own listings), and every `--sample-seconds` records:
 *
 * - CPU (% of one core over the interval) and resident memory of every process of the service's tree (the service,
 *   each chain's anvil, any other child), from `/proc`;
 * - each sandbox chain's height (`sandbox info --json` names them) and the cost of mining a block: the anvil
 *   process's CPU time over the interval divided by the blocks it mined in it;
 * - each job's last run (duration, result) from `/status`, and the runs seen finished in the interval;
 * - the API's latency percentiles and its non-200 answers over the interval;
 * - the data directory's size and the world save's size (the sandbox folder's chain dumps, `world.json`,
 *   `history.json`).
 *
 * Each sample is a JSON line in `--out` (default `.bench/soak-<time>.jsonl`); at the end the bench stops the service
 * (timing the shutdown, which saves the world) and prints a Markdown table: per series its first, last, mean and
 * least-squares slope per hour, and whether it is flat within its noise (bench/soak/analyse.ts). Memory, latency and
 * job durations must be flat; disk may grow at most linearly with the published history.
 *
 * The block interval is shortened (`SANDBOX_BLOCK_SECONDS`, default here 1 s against the service's 5 s) so that a
 * run mines more blocks in its wall time: 7,200 blocks in two hours on each EVM chain, what the default interval
 * mines in ten hours and 300 days of the history's hourly blocks.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { processTree, TICK } from '../support/processes.js';
import { type Fit, fitLine, percentile } from './analyse.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '120' },
    'block-seconds': { type: 'string', default: '1' },
    rps: { type: 'string', default: '2' },
    'sample-seconds': { type: 'string', default: '60' },
    'data-dir': { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    port: { type: 'string', default: '18931' },
    'cpu-prof': { type: 'string' },
  },
});
const minutes = Number(flags.minutes);
const blockSeconds = Number(flags['block-seconds']);
const rps = Number(flags.rps);
const sampleSeconds = Number(flags['sample-seconds']);
const port = Number(flags.port);
for (const [name, v] of Object.entries({ minutes, blockSeconds, sampleSeconds, port })) {
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: a positive number, got ${v}`);
}
// `--rps 0`: no API traffic at all, the resting service of issue 31 item 1.
if (!Number.isFinite(rps) || rps < 0) throw new Error(`--rps: a number ≥ 0, got ${rps}`);
if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('not built: run `npm run build` first');

const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
const dataDir = path.resolve(flags['data-dir'] ?? path.join(ROOT, '.bench', `soak-${stamp}`));
const outFile = path.resolve(flags.out ?? path.join(ROOT, '.bench', `soak-${stamp}.jsonl`));
mkdirSync(dataDir, { recursive: true });
mkdirSync(path.dirname(outFile), { recursive: true });
const base = `http://127.0.0.1:${port}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- files --------------------------------------------------------------------------------------------------------

function sizeOf(dir: string, match: (name: string) => boolean = () => true): number {
  let total = 0;
  const walk = (d: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && match(e.name)) {
        try {
          total += statSync(p).size;
        } catch {
          // removed between the listing and the stat
        }
      }
    }
  };
  walk(dir);
  return total;
}
const isSave = (name: string) => /^chain-.*\.json\.gz$/.test(name) || name === 'world.json' || name === 'history.json';

// ---- the service --------------------------------------------------------------------------------------------------

async function rpc(url: string, method: string): Promise<unknown> {
  // fetch refuses credentials in a URL (the Bitcoin stand-in's has them): they go in the Authorization header.
  const u = new URL(url);
  const auth = u.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
    : undefined;
  u.username = '';
  u.password = '';
  const res = await fetch(u, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(5000),
  });
  return ((await res.json()) as { result?: unknown }).result;
}

const execFileP = promisify(execFile);
async function sandboxChains(): Promise<Record<string, string>> {
  // A second start is ready before its world is running (the chains open while the world loads): ask again.
  for (let tries = 1; ; tries++) {
    try {
      return await sandboxChainsOnce();
    } catch (err) {
      if (tries >= 120) throw err;
      await sleep(1000);
    }
  }
}

async function sandboxChainsOnce(): Promise<Record<string, string>> {
  const { stdout } = await execFileP(process.execPath, ['bin/protoscore.js', 'sandbox', 'info', '--json'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
  });
  const info = JSON.parse(stdout) as { chains?: Record<string, { rpc_url?: string }> };
  const out: Record<string, string> = {};
  for (const [chain, c] of Object.entries(info.chains ?? {})) if (c.rpc_url) out[chain] = c.rpc_url;
  return out;
}

async function start(): Promise<{ child: ChildProcess; token: string; startMs: number }> {
  const started = Date.now();
  // `--cpu-prof DIR`: V8 CPU profiles of the service's threads (main, API, jobs, world) into DIR, written at its stop.
  const profile = flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(flags['cpu-prof'])}`] : [];
  const child = spawn(process.execPath, [...profile, 'bin/protoscore.js', 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SANDBOX_BLOCK_SECONDS: String(blockSeconds),
      DATABASE_URL: '',
      REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const deadline = started + 30 * 60_000;
  while (Date.now() < deadline) {
    await sleep(500);
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before /ready`);
    const token = /Bearer (ps_[A-Za-z0-9_-]+)/.exec(out)?.[1];
    if (!token) continue;
    try {
      const ready = await fetch(`${base}/ready`);
      if (ready.status === 200) return { child, token, startMs: Date.now() - started };
    } catch {
      // not listening yet
    }
  }
  child.kill('SIGKILL');
  throw new Error('not ready within 30 minutes');
}

/** The documents the trickle asks for: a few of every computed area, found through the API's own listings. */
async function documentPaths(headers: Record<string, string>): Promise<string[]> {
  const get = async (p: string) => {
    const res = await fetch(`${base}${p}`, { headers });
    return res.status === 200 ? ((await res.json()) as { data: unknown }).data : undefined;
  };
  const paths = [
    '/data/liquidity/dex/available-dexes',
    '/data/liquidity/lending/available-markets',
    '/scores/development',
    '/data/blockchain/ethereum',
    '/data/blockchain/bitcoin',
    '/data/blockchain/arbitrum',
    '/data/stablecoin/makerdao',
    '/data/stablecoin/liquity',
    '/scores/liquidity-stablecoin-all-markets',
  ];
  const dexes = (await get('/data/liquidity/dex/available-dexes')) as
    | { chain: string; protocol: string; version: string }[]
    | undefined;
  const d = dexes?.[0];
  if (d) {
    const pools = (await get(`/data/liquidity/dex/available-pools/${d.chain}/${d.protocol}/${d.version}/1/0`)) as
      | { pool_address: string }[]
      | undefined;
    for (const pool of (pools ?? []).slice(0, 3)) {
      paths.push(`/scores/liquidity/dex/pool-score/${pool.pool_address}`);
      paths.push(`/data/liquidity/dex/pool-analytics/${pool.pool_address}`);
    }
  }
  const markets = (await get('/data/liquidity/lending/available-markets')) as
    | { chain: string; protocol: string; version: string; base_asset_symbol: string }[]
    | undefined;
  for (const m of (markets ?? []).slice(0, 2)) {
    const p = [m.chain, m.protocol, m.version, m.base_asset_symbol].map((x) => x.toLowerCase()).join('/');
    paths.push(`/scores/liquidity/lending/protocol-score/${p}`);
  }
  const checked: string[] = [];
  for (const p of paths) if ((await fetch(`${base}${p}`, { headers })).status === 200) checked.push(p);
  return checked;
}

// ---- the run ------------------------------------------------------------------------------------------------------

interface JobRun {
  readonly name: string;
  readonly started_at: string | null;
  readonly duration_ms: number | null;
  readonly result: string | null;
}
interface Sample {
  readonly at: string;
  readonly hours: number;
  readonly processes: { name: string; pid: number; cpu_pct: number; rss_mib: number }[];
  readonly cpu_pct_total: number;
  readonly rss_mib_total: number;
  readonly chains: Record<string, { height: number | null; mining_ms_per_block: number | null }>;
  readonly jobs_finished: JobRun[];
  readonly api: {
    requests: number;
    non_200: number;
    p50_ms: number | null;
    p99_ms: number | null;
    max_ms: number | null;
  };
  readonly data_dir_mib: number;
  readonly save_mib: number;
}

const MiB = 1024 * 1024;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function main() {
  console.log(`data directory ${dataDir}; samples to ${outFile}`);
  console.log(`block interval ${blockSeconds} s, ${rps} requests/s, ${minutes} min, a sample every ${sampleSeconds} s`);
  const { child, token, startMs } = await start();
  const headers = { authorization: `Bearer ${token}` };
  console.log(`ready after ${(startMs / 1000).toFixed(1)} s`);
  const chains = await sandboxChains();
  const docs = await documentPaths(headers);
  if (docs.length === 0) throw new Error('no document answered 200');
  console.log(`chains: ${Object.keys(chains).join(', ')}; ${docs.length} documents in the trickle`);

  // The trickle: one request every 1/rps s, round robin, latencies kept per interval.
  let latencies: number[] = [];
  let non200 = 0;
  let stopping = false;
  let i = 0;
  const trickle = (async () => {
    if (rps === 0) return;
    const gap = 1000 / rps;
    let next = Date.now();
    while (!stopping) {
      next += gap;
      const p = docs[i++ % docs.length]!;
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}${p}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) non200++;
      } catch {
        non200++;
      }
      latencies.push(performance.now() - t0);
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
      else next = Date.now();
    }
  })();

  const t0 = Date.now();
  let prevProcs = new Map(processTree(child.pid!).map((p) => [p.pid, p]));
  let prevHeights: Record<string, number | null> = {};
  for (const [c, url] of Object.entries(chains)) prevHeights[c] = await height(url);
  let prevAt = Date.now();
  const seenRuns = new Set<string>();
  const samples: Sample[] = [];
  while (Date.now() - t0 < minutes * 60_000) {
    await sleep(sampleSeconds * 1000);
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) during the soak`);
    const now = Date.now();
    const dtS = (now - prevAt) / 1000;
    const procs = processTree(child.pid!);
    const processes = procs.map((p) => {
      const before = prevProcs.get(p.pid);
      const cpu = before ? ((p.cpuTicks - before.cpuTicks) / TICK / dtS) * 100 : 0;
      return { name: p.name, pid: p.pid, cpu_pct: round(cpu), rss_mib: round(p.rssBytes / MiB) };
    });
    const heights: Record<string, number | null> = {};
    const chainRows: Sample['chains'] = {};
    for (const [c, url] of Object.entries(chains)) {
      heights[c] = await height(url);
      const port = new URL(url).port;
      const anvil = procs.find((p) => p.name === `anvil:${port}`);
      const before = anvil ? prevProcs.get(anvil.pid) : undefined;
      const mined = heights[c] !== null && prevHeights[c] != null ? heights[c]! - prevHeights[c]! : 0;
      chainRows[c] = {
        height: heights[c] ?? null,
        mining_ms_per_block:
          anvil && before && mined > 0 ? round((((anvil.cpuTicks - before.cpuTicks) / TICK) * 1000) / mined) : null,
      };
    }
    const status = await fetch(`${base}/status`, { headers: { ...headers, accept: 'application/json' } })
      .then((r) => r.json() as Promise<{ data: { jobs: { name: string; last_run: JobRun | null }[] } }>)
      .catch(() => undefined);
    const jobsFinished: JobRun[] = [];
    for (const job of status?.data.jobs ?? []) {
      const run = job.last_run;
      if (!run?.started_at || run.duration_ms === null) continue;
      const key = `${job.name}@${run.started_at}`;
      if (seenRuns.has(key)) continue;
      seenRuns.add(key);
      jobsFinished.push({
        name: job.name,
        started_at: run.started_at,
        duration_ms: run.duration_ms,
        result: run.result,
      });
    }
    const l = latencies;
    latencies = [];
    const sample: Sample = {
      at: new Date(now).toISOString(),
      hours: round((now - t0) / 3_600_000, 4),
      processes,
      cpu_pct_total: round(processes.reduce((a, p) => a + p.cpu_pct, 0)),
      rss_mib_total: round(processes.reduce((a, p) => a + p.rss_mib, 0)),
      chains: chainRows,
      jobs_finished: jobsFinished,
      api: {
        requests: l.length,
        non_200: non200,
        p50_ms: percentile(l, 0.5),
        p99_ms: percentile(l, 0.99),
        max_ms: l.length ? Math.max(...l) : null,
      },
      data_dir_mib: round(sizeOf(dataDir) / MiB),
      save_mib: round(sizeOf(path.join(dataDir, 'sandbox'), isSave) / MiB),
    };
    non200 = 0;
    samples.push(sample);
    appendFileSync(outFile, `${JSON.stringify(sample)}\n`);
    console.log(
      `${sample.at} +${(sample.hours * 60).toFixed(0)} min: CPU ${sample.cpu_pct_total} %, RSS ${sample.rss_mib_total} MiB, ` +
        `${Object.entries(chainRows)
          .map(([c, r]) => `${c} ${r.height}`)
          .join(
            ', ',
          )}, API p99 ${sample.api.p99_ms?.toFixed(1)} ms, data ${sample.data_dir_mib} MiB, save ${sample.save_mib} MiB`,
    );
    prevProcs = new Map(procs.map((p) => [p.pid, p]));
    prevHeights = heights;
    prevAt = now;
  }
  stopping = true;
  await trickle;
  const stopStart = Date.now();
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  const stopMs = Date.now() - stopStart;
  report(samples, startMs, stopMs);
  if (!flags.keep && !flags['data-dir']) rmSync(dataDir, { recursive: true, force: true });
}

/** An EVM chain's height (`eth_blockNumber`), or Bitcoin's (`getblockcount`); null when neither answers. */
async function height(url: string): Promise<number | null> {
  for (const method of ['eth_blockNumber', 'getblockcount']) {
    try {
      const h = await rpc(url, method);
      if (typeof h === 'string' || typeof h === 'number') return Number(h);
    } catch {
      // not this kind of node
    }
  }
  return null;
}

function report(samples: readonly Sample[], startMs: number, stopMs: number) {
  const rows: [string, Fit, string][] = [];
  const series = (name: string, unit: string, pick: (s: Sample) => number | null | undefined, floor = 0) => {
    const pts = samples.flatMap((s) => {
      const y = pick(s);
      return y === null || y === undefined ? [] : [{ x: s.hours, y }];
    });
    rows.push([name, fitLine(pts, floor), unit]);
  };
  series('CPU, whole service', '% of a core', (s) => s.cpu_pct_total, 2);
  series('resident memory, whole service', 'MiB', (s) => s.rss_mib_total, 50);
  const names = [...new Set(samples.flatMap((s) => s.processes.map((p) => p.name)))];
  for (const n of names) {
    series(`CPU, ${n}`, '% of a core', (s) => s.processes.find((p) => p.name === n)?.cpu_pct, 2);
    series(`resident memory, ${n}`, 'MiB', (s) => s.processes.find((p) => p.name === n)?.rss_mib, 25);
  }
  const chains = [...new Set(samples.flatMap((s) => Object.keys(s.chains)))];
  for (const c of chains) {
    series(`height, ${c}`, 'blocks', (s) => s.chains[c]?.height);
    series(`mining cost, ${c}`, 'ms CPU per block', (s) => s.chains[c]?.mining_ms_per_block, 5);
  }
  series('API p50', 'ms', (s) => s.api.p50_ms, 1);
  series('API p99', 'ms', (s) => s.api.p99_ms, 5);
  const jobs = [...new Set(samples.flatMap((s) => s.jobs_finished.map((j) => j.name)))].sort();
  for (const j of jobs) {
    series(
      `job ${j}`,
      'ms',
      (s) => {
        const runs = s.jobs_finished.filter((r) => r.name === j && r.duration_ms !== null);
        return runs.length ? runs.reduce((a, r) => a + r.duration_ms!, 0) / runs.length : null;
      },
      50,
    );
  }
  series('data directory', 'MiB', (s) => s.data_dir_mib);
  series('world save', 'MiB', (s) => s.save_mib);
  const f = (x: number | null, d = 1) => (x === null ? '—' : x.toFixed(d));
  console.log(
    `\nfirst start to /ready ${(startMs / 1000).toFixed(1)} s; shutdown (saves the world) ${(stopMs / 1000).toFixed(1)} s; ` +
      `${samples.length} samples; non-200 answers ${samples.reduce((a, s) => a + s.api.non_200, 0)} of ${samples.reduce((a, s) => a + s.api.requests, 0)}\n`,
  );
  console.log('| Series | Unit | First | Last | Mean | Min–max | Slope per hour | Flat within noise |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const [name, r, unit] of rows) {
    const flat = r.flat === null ? '—' : r.flat ? 'yes' : 'no';
    console.log(
      `| ${name} | ${unit} | ${f(r.first)} | ${f(r.last)} | ${f(r.mean)} | ${f(r.min)}–${f(r.max)} | ${f(r.slopePerHour, 2)} | ${flat} |`,
    );
  }
  console.log(
    `\ncommand: npm run bench:soak -- --minutes ${minutes} --block-seconds ${blockSeconds} --rps ${rps} --sample-seconds ${sampleSeconds}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
