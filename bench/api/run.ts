/**
 * API benchmark: the real service serving one cached dataset document vs a bare Fastify 5 route answering the
 * same bytes. Both servers run in child processes (`node --import tsx`), so the load generator (autocannon, in
 * this process) does not share their event loop. Runs alternate between the two, after a warm-up of each.
 *
 *   npm run bench:api -- [--duration 10] [--rounds 2] [--warmup 5] [--connections 50] [--pipelining 1]
 *                        [--rate 0] [--quiet 60] [--pin] [--cpu-prof] [--log-level info]
 *
 * --rate       fixed offered load in requests/s (autocannon overallRate) instead of "as fast as possible": the
 *              throughput is then meaningless, but server CPU per request compares the two at equal load
 * --quiet      before each run, wait up to this many seconds for the machine to be idle (other processes using
 *              < 10 % of a core); the CPU used by other processes during each run is reported either way
 * --pin        pins this process (load generator) to CPU 0 and the server children to CPU 1 (Linux `taskset`)
 * --cpu-prof   writes a V8 CPU profile of the service child to .bench/ (node --cpu-prof)
 * --log-level  the service's LOG_LEVEL (default info, as in production; `silent` shows what logging costs)
 *
 * Prints a table, a Markdown snippet for docs/benchmarks.md, and writes the JSON results to .bench/api-<ts>.json.
 * Exits non-zero when any response is not a 200 (or on connection errors / timeouts).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const OUT_DIR = path.join(ROOT, '.bench');
/** The URL shape the service registers for the document (its route table names parameters by position). */
const ROUTE_SHAPE = '/data/liquidity/dex/pool-analytics/:p0';

// ---------------------------------------------------------------------------------------------- arguments

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    pipelining: { type: 'string', default: '1' },
    rate: { type: 'string', default: '0' },
    quiet: { type: 'string', default: '60' },
    pin: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'info' },
  },
  strict: true,
});

function positiveInt(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: expected an integer ≥ ${min}, got ${value}`);
  return n;
}

const opts = {
  duration: positiveInt('duration', flags.duration),
  rounds: positiveInt('rounds', flags.rounds),
  warmup: positiveInt('warmup', flags.warmup, 0),
  connections: positiveInt('connections', flags.connections),
  pipelining: positiveInt('pipelining', flags.pipelining),
  /** Requests/s over all connections; 0 = as fast as the server answers (throughput mode). */
  rate: positiveInt('rate', flags.rate, 0),
  /** Longest wait, in seconds, for other processes to leave the CPUs before each run; 0 = do not wait. */
  quiet: positiveInt('quiet', flags.quiet, 0),
  pin: flags.pin,
  cpuProf: flags['cpu-prof'],
  logLevel: flags['log-level'],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (n: number) => `${Math.round(n * 100)} %`;

// ---------------------------------------------------------------------------------------------- children

const children = new Set<ChildProcess>();
let tmpDir: string | undefined;
let current: autocannon.Instance | undefined;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Last resort (process exit, however it happens): nothing survives us. */
function killAllSync(): void {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  tmpDir = undefined;
}
process.on('exit', killAllSync);

async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (alive(child)) child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c)));
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the load and the servers\n`);
    current?.stop();
    stopAll().finally(() => process.exit(130));
  });
}

interface Ready {
  readonly type: 'ready';
  readonly port: number;
  readonly token?: string;
  readonly path?: string;
}

/** Forks a TypeScript child under tsx and waits for its `ready` message. */
function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  stdout: number | 'ignore',
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(HERE, script), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  children.add(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after 60 s`)), 60_000);
    child.once('message', (msg: Ready) => {
      clearTimeout(timer);
      if (msg?.type === 'ready') resolve({ child, ready: msg });
      else reject(new Error(`${name}: unexpected message ${JSON.stringify(msg)}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
    });
  });
}

// ---------------------------------------------------------------------------------------------- measuring

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process, all threads (Linux /proc). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime) of proc(5); `fields` starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Machine-wide CPU seconds (all cores) since boot: busy (without steal) and stolen by the hypervisor. */
function machineCpu(): { busy: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  return { busy: (user! + nice! + system! + irq! + softirq!) / CLK_TCK, steal: steal! / CLK_TCK };
}

/**
 * Waits (up to `opts.quiet` s) until processes other than ours use < 10 % of a core and the hypervisor steals
 * < 10 % of a core that wants to run (probed by spinning this thread for a second: an idle VM shows no steal).
 */
async function waitQuiet(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + opts.quiet * 1000;
  for (;;) {
    await sleep(200);
    const m0 = machineCpu();
    const own0 = pids.reduce((a, pid) => a + cpuSecondsOf(pid), 0);
    const self0 = process.cpuUsage();
    const t0 = Date.now();
    while (Date.now() - t0 < 1000) {
      // spin: the probe for steal
    }
    const self = process.cpuUsage(self0);
    const m1 = machineCpu();
    const own = pids.reduce((a, pid) => a + cpuSecondsOf(pid), 0) - own0 + (self.user + self.system) / 1e6;
    const others = Math.max(0, m1.busy - m0.busy - own);
    const steal = m1.steal - m0.steal;
    if ((others < 0.1 && steal < 0.1) || Date.now() >= deadline) return;
    process.stderr.write(
      `(waiting for a quiet machine: other processes use ${pct(others)} of a core, the hypervisor steals ${pct(steal)})\n`,
    );
  }
}

function pin(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

interface Target {
  readonly name: 'service' | 'bare';
  readonly url: string;
  readonly pid: number;
}

interface Run {
  readonly target: Target['name'];
  readonly round: number;
  readonly requestsPerSecMean: number;
  readonly requests2xx: number;
  readonly durationSeconds: number;
  readonly latencyMeanMs: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  readonly bytesPerSecMean: number;
  readonly serverCpuSeconds: number;
  /** Server CPU time per answered request (all threads): the cost of one request, independent of the load. */
  readonly serverCpuUsPerRequest: number;
  /** Share of one core the server used (1 = one core saturated). */
  readonly serverCpuUtilisation: number;
  /** Share of one core this process (the load generator) used. */
  readonly loadGenCpuUtilisation: number;
  /** Share of one core used by everything else on the machine (should be ≈ 0: a busy machine skews the run). */
  readonly otherCpuUtilisation: number;
  /** Share of one core stolen by the hypervisor. */
  readonly stealCpuUtilisation: number;
  readonly statusCodes: Record<string, number>;
  /** Start and end of the run on the monotonic clock, in µs (the clock of V8 CPU profiles: see profile.ts). */
  readonly windowUs: readonly [number, number];
}

async function load(target: Target, seconds: number, headers: Record<string, string>): Promise<autocannon.Result> {
  const instance = autocannon({
    url: target.url,
    connections: opts.connections,
    pipelining: opts.pipelining,
    duration: seconds,
    ...(opts.rate > 0 ? { overallRate: opts.rate } : {}),
    headers,
    title: target.name,
  });
  current = instance;
  try {
    return await instance;
  } finally {
    current = undefined;
  }
}

function checkResult(target: Target, result: autocannon.Result, phase: string): void {
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, Number(v.count)]));
  const bad = Object.entries(codes).filter(([code]) => code !== '200');
  if (result.non2xx > 0 || bad.length > 0 || result.errors > 0 || result.timeouts > 0 || result['2xx'] === 0) {
    throw new Error(
      `${target.name} (${phase}): ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result['2xx']} 2xx; status codes ${JSON.stringify(codes)}`,
    );
  }
}

async function measure(target: Target, round: number, seconds: number, headers: Record<string, string>): Promise<Run> {
  const cpu0 = cpuSecondsOf(target.pid);
  const machine0 = machineCpu();
  const self0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const result = await load(target, seconds, headers);
  const t1 = process.hrtime.bigint();
  const wall = Number(t1 - t0) / 1e9;
  const self = process.cpuUsage(self0);
  const cpu = cpuSecondsOf(target.pid) - cpu0;
  const machine1 = machineCpu();
  const selfSeconds = (self.user + self.system) / 1e6;
  const others = machine1.busy - machine0.busy - cpu - selfSeconds;
  checkResult(target, result, `round ${round}`);
  const ok = result['2xx'];
  return {
    target: target.name,
    round,
    requestsPerSecMean: result.requests.average,
    requests2xx: ok,
    durationSeconds: result.duration,
    latencyMeanMs: result.latency.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    bytesPerSecMean: result.throughput.average,
    serverCpuSeconds: cpu,
    serverCpuUsPerRequest: (cpu / ok) * 1e6,
    serverCpuUtilisation: cpu / wall,
    loadGenCpuUtilisation: selfSeconds / wall,
    otherCpuUtilisation: Math.max(0, others / wall),
    stealCpuUtilisation: (machine1.steal - machine0.steal) / wall,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, Number(v.count)])),
    windowUs: [Number(t0 / 1000n), Number(t1 / 1000n)],
  };
}

async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(file)) {
    const buf = chunk as Buffer;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------- report

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

interface Summary {
  readonly target: Target['name'];
  readonly requestsPerSecMean: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly serverCpuUsPerRequest: number;
  readonly serverCpuUtilisation: number;
  readonly loadGenCpuUtilisation: number;
  readonly otherCpuUtilisation: number;
  readonly stealCpuUtilisation: number;
}

function summarise(name: Target['name'], runs: readonly Run[]): Summary {
  const mine = runs.filter((r) => r.target === name);
  return {
    target: name,
    requestsPerSecMean: mean(mine.map((r) => r.requestsPerSecMean)),
    latencyP50Ms: mean(mine.map((r) => r.latencyP50Ms)),
    latencyP99Ms: mean(mine.map((r) => r.latencyP99Ms)),
    serverCpuUsPerRequest: mean(mine.map((r) => r.serverCpuUsPerRequest)),
    serverCpuUtilisation: mean(mine.map((r) => r.serverCpuUtilisation)),
    loadGenCpuUtilisation: mean(mine.map((r) => r.loadGenCpuUtilisation)),
    otherCpuUtilisation: mean(mine.map((r) => r.otherCpuUtilisation)),
    stealCpuUtilisation: mean(mine.map((r) => r.stealCpuUtilisation)),
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '))
    .join('\n');
}

// ---------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const startedAt = new Date();
  tmpDir = mkdtempSync(path.join(os.tmpdir(), 'protoscore-bench-api-'));
  mkdirSync(OUT_DIR, { recursive: true });
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-');
  const logFile = path.join(tmpDir, 'service.log');
  const logFd = openSync(logFile, 'w');

  process.stderr.write('starting the service…\n');
  // One profile per thread (the main thread, and tsx's module-loader worker, which is idle after start-up).
  const profDir = path.join(OUT_DIR, `api-${stamp}-profiles`);
  const profArgs = (name: string) => (opts.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', path.join(profDir, name)] : []);
  const service = await startChild(
    'service',
    'server.ts',
    { BENCH_DATA_DIR: path.join(tmpDir, 'data'), BENCH_LOG_LEVEL: opts.logLevel },
    logFd,
    profArgs('service'),
  );
  closeSync(logFd);
  const { port, token, path: docPath } = service.ready;
  if (!token || !docPath) throw new Error('service: ready message without token or path');
  const headers = { authorization: `Bearer ${token}` };
  const serviceUrl = `http://127.0.0.1:${port}${docPath}`;

  // The exact bytes the service answers, and proof that the token check is on. autocannon sends no
  // Accept-Encoding, so neither server compresses; fetch would ask for gzip unless told otherwise.
  const identity = { 'accept-encoding': 'identity' };
  const res = await fetch(serviceUrl, { headers: { ...headers, ...identity } });
  if (res.status !== 200) throw new Error(`service: GET ${docPath} answered ${res.status}: ${await res.text()}`);
  if (res.headers.has('content-encoding')) throw new Error('service: compressed the body though asked for identity');
  const body = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type') ?? 'application/json; charset=utf-8';
  const serviceHeaders = Object.fromEntries(res.headers);
  const anonymous = await fetch(serviceUrl, { headers: identity });
  await anonymous.arrayBuffer();
  if (anonymous.status !== 401) throw new Error(`service: GET without a token answered ${anonymous.status}, not 401`);
  const bodyFile = path.join(tmpDir, 'body.json');
  writeFileSync(bodyFile, body);
  process.stderr.write(`service on :${port}, body ${body.length} bytes\n`);

  process.stderr.write('starting the bare Fastify server…\n');
  const bare = await startChild(
    'bare',
    'bare.ts',
    { BENCH_BODY_FILE: bodyFile, BENCH_CONTENT_TYPE: contentType, BENCH_ROUTE: ROUTE_SHAPE },
    'ignore',
    profArgs('bare'),
  );
  const bareUrl = `http://127.0.0.1:${bare.ready.port}${docPath}`;
  const bareRes = await fetch(bareUrl, { headers: { ...headers, ...identity } });
  const bareBody = Buffer.from(await bareRes.arrayBuffer());
  if (bareRes.status !== 200 || !bareBody.equals(body)) {
    throw new Error(`bare: answered ${bareRes.status} with ${bareBody.length} bytes, not the service's body`);
  }
  const bareHeaders = Object.fromEntries(bareRes.headers);

  const targets: Record<Target['name'], Target> = {
    service: { name: 'service', url: serviceUrl, pid: service.child.pid! },
    bare: { name: 'bare', url: bareUrl, pid: bare.child.pid! },
  };
  if (opts.pin) {
    pin(process.pid, 0);
    pin(targets.service.pid, 1);
    pin(targets.bare.pid, 1);
  }

  // Requests the service answered (the two checks above included), to compare with its access log.
  let serviceRequests = 2;
  const ourPids = [targets.service.pid, targets.bare.pid];
  const settle = async () => {
    if (opts.quiet > 0) await waitQuiet(ourPids);
    else await sleep(1000);
  };
  if (opts.warmup > 0) {
    for (const target of [targets.service, targets.bare]) {
      await settle();
      process.stderr.write(`warm-up ${target.name} ${opts.warmup} s\n`);
      const result = await load(target, opts.warmup, headers);
      checkResult(target, result, 'warm-up');
      if (target.name === 'service') serviceRequests += result['2xx'];
    }
  }

  const runs: Run[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    const order = round % 2 === 1 ? [targets.service, targets.bare] : [targets.bare, targets.service];
    for (const target of order) {
      await settle();
      process.stderr.write(`round ${round}/${opts.rounds}: ${target.name} ${opts.duration} s… `);
      const run = await measure(target, round, opts.duration, headers);
      runs.push(run);
      if (target.name === 'service') serviceRequests += run.requests2xx;
      process.stderr.write(
        `${int(run.requestsPerSecMean)} req/s, p99 ${ms(run.latencyP99Ms)}, CPU: server ${pct(run.serverCpuUtilisation)}, ` +
          `load gen ${pct(run.loadGenCpuUtilisation)}, other ${pct(run.otherCpuUtilisation)}\n`,
      );
    }
  }

  await stopAll();
  // One access-log line per request, plus start-up lines: logging was really on.
  const logLines = await countLines(logFile);
  if (opts.logLevel === 'info' && logLines < serviceRequests) {
    throw new Error(`service: ${logLines} log lines for ${serviceRequests} requests; request logging is not on`);
  }

  const svc = summarise('service', runs);
  const bar = summarise('bare', runs);
  const ratio = svc.requestsPerSecMean / bar.requestsPerSecMean;
  const cpuRatio = bar.serverCpuUsPerRequest / svc.serverCpuUsPerRequest;

  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
  const command = `npm run bench:api -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
  const report = {
    benchmark: 'api: served dataset vs bare Fastify',
    date: startedAt.toISOString(),
    command,
    options: opts,
    machine,
    document: { path: docPath, bytes: body.length, contentType },
    responseHeaders: { service: serviceHeaders, bare: bareHeaders },
    serviceLogLines: logLines,
    serviceRequests,
    profiles: opts.cpuProf ? path.relative(ROOT, profDir) : null,
    runs,
    summary: { service: svc, bare: bar, throughputRatio: ratio, cpuPerRequestRatio: cpuRatio, goal: 0.85 },
  };
  const outFile = path.join(OUT_DIR, `api-${stamp}.json`);
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);

  const rows = [
    ['target', 'req/s (mean)', 'p50', 'p99', 'server CPU/req', 'server CPU', 'load gen CPU', 'other CPU', 'steal'],
    ...[svc, bar].map((s) => [
      s.target,
      int(s.requestsPerSecMean),
      ms(s.latencyP50Ms),
      ms(s.latencyP99Ms),
      `${s.serverCpuUsPerRequest.toFixed(1)} µs`,
      pct(s.serverCpuUtilisation),
      pct(s.loadGenCpuUtilisation),
      pct(s.otherCpuUtilisation),
      pct(s.stealCpuUtilisation),
    ]),
  ];
  const verdict =
    opts.rate > 0
      ? `meaningless at a fixed offered load of ${opts.rate} req/s: compare CPU per request`
      : ratio >= 0.85
        ? 'meets the goal of ≥ 0.85'
        : 'BELOW the goal of ≥ 0.85';
  process.stdout.write(`\n${table(rows)}\n\n`);
  process.stdout.write(`throughput ratio service/bare: ${ratio.toFixed(3)} (${verdict})\n`);
  process.stdout.write(`CPU-per-request ratio bare/service: ${cpuRatio.toFixed(3)}\n`);
  process.stdout.write(`service log lines: ${int(logLines)} for ${int(serviceRequests)} requests\n`);
  const busiest = Math.max(...runs.map((r) => r.otherCpuUtilisation));
  const stolen = Math.max(...runs.map((r) => r.stealCpuUtilisation));
  if (busiest > 0.15 || stolen > 0.15) {
    process.stdout.write(
      `WARNING: during a run, other processes used up to ${pct(busiest)} of a core and the hypervisor stole up to ` +
        `${pct(stolen)}: the numbers are skewed; run again on a quiet machine\n`,
    );
  }
  process.stdout.write(`results: ${path.relative(ROOT, outFile)}\n`);
  if (opts.cpuProf) {
    process.stdout.write(
      `CPU profiles: ${path.relative(ROOT, profDir)}/{service,bare}/; summarise the measured runs with\n` +
        `  node --import tsx bench/api/profile.ts ${path.relative(ROOT, outFile)} service\n`,
    );
  }

  const md = [
    `Measured ${startedAt.toISOString().slice(0, 10)} on ${machine.cpus} × ${machine.cpuModel}, ` +
      `${machine.memoryGiB} GiB RAM, Node ${machine.node}; \`${command}\` ` +
      `(${opts.connections} connections, pipelining ${opts.pipelining}, ` +
      (opts.rate > 0 ? `fixed offered load ${opts.rate} req/s, ` : '') +
      (opts.logLevel !== 'info' ? `service LOG_LEVEL=${opts.logLevel}, ` : '') +
      `${opts.rounds} × ${opts.duration} s per ` +
      `target, alternating, after ${opts.warmup} s warm-up; document ${body.length} bytes).`,
    '',
    '| Target | Requests/s (mean) | p50 latency | p99 latency | Server CPU per request |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| service: \`GET ${docPath.replace(/0x[0-9a-f]{40}/, '0x88e6…5640')}\` | ${int(svc.requestsPerSecMean)} | ${ms(svc.latencyP50Ms)} | ${ms(svc.latencyP99Ms)} | ${svc.serverCpuUsPerRequest.toFixed(1)} µs |`,
    `| bare Fastify, same bytes | ${int(bar.requestsPerSecMean)} | ${ms(bar.latencyP50Ms)} | ${ms(bar.latencyP99Ms)} | ${bar.serverCpuUsPerRequest.toFixed(1)} µs |`,
    '',
    `Throughput ratio service/bare: **${ratio.toFixed(2)}** (goal ≥ 0.85).`,
  ].join('\n');
  process.stdout.write(`\n--- Markdown ---\n${md}\n`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`\nbench:api failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await stopAll();
  killAllSync();
}
