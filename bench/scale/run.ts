/**
 * Load on the whole (issue 17): compose.yaml's deployment on this machine (bench/scale/deployment.ts) — `sandbox
 * run`, two `worker`s ingesting its live chain (a block every SANDBOX_BLOCK_SECONDS), two `serve`s on one fresh
 * PostgreSQL database and Redis — and autocannon (in this process) sending a cached document request with a valid
 * token: first to one `serve` alone, then to both at once (half the connections each). Prints a Markdown snippet for
 * docs/benchmarks.md and writes the JSON results to .bench/scale-<ts>.json. Exits 1 when any answer is not a 200.
 *
 *   node --import tsx bench/scale/run.ts [--duration 10] [--warmup 5] [--connections 50] [--days 2] [--scale 0.2]
 *
 * Needs DATABASE_URL (any database on the server: a fresh one is created and dropped) and REDIS_URL.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { composeCommand, Deployment, ROOT } from './deployment.js';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    days: { type: 'string', default: '2' },
    scale: { type: 'string', default: '0.2' },
  },
  strict: true,
});
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
const pgUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!pgUrl || !redisUrl) {
  process.stderr.write('bench/scale: set DATABASE_URL and REDIS_URL\n');
  process.exit(2);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface Load {
  readonly target: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Answers with a 200. */
  readonly ok: number;
  readonly errors: number;
}

async function load(urls: readonly string[], token: string, seconds: number): Promise<Load[]> {
  const results = await Promise.all(
    urls.map(
      (url) =>
        autocannon({
          url,
          connections: Math.max(1, Math.floor(connections / urls.length)),
          duration: seconds,
          headers: { authorization: `Bearer ${token}` },
        }) as PromiseLike<autocannon.Result>,
    ),
  );
  return results.map((r, i) => ({
    target: urls[i]!,
    requestsPerSecond: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    ok: r.statusCodeStats['200']?.count ?? 0,
    errors: r.non2xx + r.errors + r.timeouts,
  }));
}

const deployment = await Deployment.create({ pgUrl, redisUrl, env: { LOG_LEVEL: 'info', SYNC_INTERVAL_MS: '1000' } });
const stop = async () => {
  await deployment.close();
};
process.once('SIGINT', () => void stop().finally(() => process.exit(130)));
process.once('SIGTERM', () => void stop().finally(() => process.exit(143)));
const db = new pg.Pool({ connectionString: deployment.databaseUrl, max: 1 });
try {
  process.stderr.write('bench/scale: sandbox world…\n');
  const { configFile, proc: sandbox } = await deployment.sandbox({
    SANDBOX_DAYS: flags.days,
    SANDBOX_SCALE: flags.scale,
    SANDBOX_SEED: '1',
  });
  const migrated = await deployment.run(composeCommand('migrate'));
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stdout}`);
  const apis = await Promise.all([deployment.serve('serve-a'), deployment.serve('serve-b')]);
  const workers = [
    deployment.worker('worker-a', { CONFIG_FILE: configFile }),
    deployment.worker('worker-b', { CONFIG_FILE: configFile }),
  ];
  const made = await deployment.run(['keys', 'create', '--name', 'bench', '--rate', '9999999/min']);
  const token = made.stdout.trim().split('\n').at(-1)!;
  process.stderr.write('bench/scale: waiting for the DEX computation…\n');
  let document: string | undefined;
  for (const deadline = Date.now() + 900_000; !document && Date.now() < deadline; await delay(1000)) {
    const { rows } = await db.query(
      "select path from datasets where path like '/data/liquidity/dex/pool-analytics/%' order by path limit 1",
    );
    document = rows[0]?.path;
  }
  if (!document) throw new Error('no DEX pool document was published');
  const urls = apis.map((a) => `${a.url}${document}`);
  for (const url of urls) {
    const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (answer.status !== 200) throw new Error(`${url}: ${answer.status}`);
  }
  const bytes = (await (await fetch(urls[0]!, { headers: { authorization: `Bearer ${token}` } })).text()).length;
  const runsBefore = Number((await db.query("select count(*) as n from job_runs where status = 'ok'")).rows[0].n);
  const startedAt = Date.now();

  await load(urls.slice(0, 1), token, warmup);
  const one = await load(urls.slice(0, 1), token, duration);
  await load(urls, token, warmup);
  const both = await load(urls, token, duration);

  const elapsed = (Date.now() - startedAt) / 1000;
  const { rows: runRows } = await db.query(
    "select job, count(*) as n from job_runs where status = 'ok' and started_at_ms >= $1 group by job order by job",
    [startedAt],
  );
  const runsDuring =
    Number((await db.query("select count(*) as n from job_runs where status = 'ok'")).rows[0].n) - runsBefore;
  const head = Number(
    (
      (await (
        await fetch(JSON.parse(readFileSync(configFile, 'utf8')).RPC_URL_ETHEREUM, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
        })
      ).json()) as { result: string }
    ).result,
  );
  // Every answer has its access line in the serving process's log: the count confirms autocannon's.
  await delay(500);
  const accessLines = apis.map(
    (a) => a.proc.lines.filter((l) => l.includes('"msg":"request"') || l.includes(`"path":"${document}"`)).length,
  );
  const memory = {
    serve: apis.map((a) => rssMiB(a.proc.pid)),
    worker: workers.map((w) => rssMiB(w.pid)),
    sandbox: rssMiB(sandbox.pid),
  };
  const errors = [...one, ...both].reduce((n, r) => n + r.errors, 0);
  const sum = (rs: Load[]) => rs.reduce((n, r) => n + r.requestsPerSecond, 0);
  const result = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      os: `${os.type()} ${os.release()}`,
    },
    command: `node --import tsx bench/scale/run.ts --duration ${duration} --warmup ${warmup} --connections ${connections} --days ${flags.days} --scale ${flags.scale}`,
    document,
    bytes,
    one,
    both,
    totals: { one: sum(one), both: sum(both) },
    errors,
    accessLines,
    jobRunsDuringLoad: runsDuring,
    jobRunsByJob: Object.fromEntries(runRows.map((r) => [r.job, Number(r.n)])),
    chainHead: head,
    memoryMiB: memory,
  };
  mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const file = path.join(ROOT, '.bench', `scale-${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const row = (label: string, rs: Load[]) =>
    `| ${label} | ${Math.round(sum(rs)).toLocaleString('en')} | ${rs.map((r) => `${r.p50Ms} ms`).join(' / ')} | ${rs.map((r) => `${r.p99Ms} ms`).join(' / ')} | ${rs.reduce((n, r) => n + r.errors, 0)} |`;
  process.stdout.write(
    [
      `Document: \`${document}\` (${bytes} bytes); results in ${path.relative(ROOT, file)}`,
      '',
      '| Target | Requests/s (total) | p50 | p99 | Errors |',
      '| --- | ---: | ---: | ---: | ---: |',
      row('one `serve`', one),
      row('two `serve`s (each)', both),
      '',
      `During the load (${elapsed.toFixed(0)} s): ${runsDuring} job runs finished ok (${runRows.map((r) => `${r.job} ${r.n}`).join(', ')}); chain head ${head}.`,
      `Answers with a 200 (autocannon): ${[...one, ...both].map((r) => r.ok).join(' + ')}, access-log lines of the two serves (warm-ups included): ${accessLines.join(' / ')}.`,
      `Memory (RSS): serve ${memory.serve.join(' / ')} MiB, worker ${memory.worker.join(' / ')} MiB, sandbox ${memory.sandbox} MiB.`,
      '',
    ].join('\n'),
  );
  if (errors) process.exitCode = 1;
} finally {
  await db.end();
  await stop();
}
