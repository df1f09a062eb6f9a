/**
 * Load generators of bench/api: wrk (Debian's `wrk`, a C generator: one thread on its own core drives far more
 * requests than the servers answer) where installed, else autocannon in this process (a Node generator, which
 * saturates its own core before a fast server does: docs/benchmarks.md, "API"). Both report the same figures,
 * with the share of a core the generator itself used, so that a run whose generator was the limit is recognised.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export type GeneratorName = 'wrk' | 'autocannon';

export interface LoadOptions {
  readonly url: string;
  readonly seconds: number;
  readonly connections: number;
  readonly headers: Readonly<Record<string, string>>;
  /** autocannon only: pipelined requests per connection, fixed offered load (0: as fast as possible). */
  readonly pipelining: number;
  readonly rate: number;
  /** The CPU to run the generator on (wrk only; autocannon runs in this process, pinned by the caller). */
  readonly cpu: number | undefined;
}

export interface LoadResult {
  readonly requests2xx: number;
  /** Responses that were not 2xx, connection errors and timeouts. */
  readonly non2xx: number;
  readonly errors: number;
  readonly durationSeconds: number;
  readonly requestsPerSec: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** Share of one core the generator used over the run (≥ 0.9: the generator, not the server, set the pace). */
  readonly generatorCpuUtilisation: number;
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process, all threads (Linux /proc/<pid>/stat, fields 14 and 15). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Machine-wide CPU seconds (all cores) since boot: busy (without steal) and stolen by the hypervisor. */
export function machineCpu(): { busy: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  return { busy: (user! + nice! + system! + irq! + softirq!) / CLK_TCK, steal: steal! / CLK_TCK };
}

export function wrkInstalled(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version prints its banner and exits 1.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** A wrk duration ("1.23ms", "512.00us", "1.01s") in ms. */
function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`wrk: cannot read the duration ${JSON.stringify(text)}`);
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

/** Parses wrk's `--latency` report. */
export function parseWrk(out: string): Omit<LoadResult, 'generatorCpuUtilisation'> {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(out);
  if (!total) throw new Error(`wrk: no request count in its output:\n${out}`);
  const requests = Number(total[1]);
  const seconds = wrkMs(`${total[2]}${total[3]}`) / 1000;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).reduce((a, n) => a + Number(n), 0) : 0;
  const pctl = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out);
    if (!m) throw new Error(`wrk: no ${p}th percentile in its output (run with --latency)`);
    return wrkMs(m[1]!);
  };
  const max = /Latency\s+\S+\s+\S+\s+(\S+)/.exec(out);
  return {
    requests2xx: requests - non2xx,
    non2xx,
    errors,
    durationSeconds: seconds,
    requestsPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? requests / seconds),
    latencyP50Ms: pctl('50'),
    latencyP99Ms: pctl('99'),
    latencyMaxMs: max ? wrkMs(max[1]!) : Number.NaN,
  };
}

let stopCurrent: (() => void) | undefined;

/** Stops the load under way (SIGINT of the bench). */
export function stopLoad(): void {
  stopCurrent?.();
}

/** wrk with one thread (one core), pinned to `cpu`; its CPU use is sampled from /proc while it runs. */
async function wrk(o: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--latency', '--timeout', '5s'];
  for (const [k, v] of Object.entries(o.headers)) args.push('-H', `${k}: ${v}`);
  args.push(o.url);
  // taskset execs wrk: the child's pid is wrk's.
  const child =
    o.cpu === undefined
      ? spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('taskset', ['-c', String(o.cpu), 'wrk', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  stopCurrent = () => child.kill('SIGINT');
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const samples: { t: number; cpu: number }[] = [];
  const sampler = setInterval(() => {
    try {
      samples.push({ t: performance.now(), cpu: cpuSecondsOf(child.pid!) });
    } catch {
      // exited between two samples
    }
  }, 100);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  clearInterval(sampler);
  stopCurrent = undefined;
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err || out}`);
  // The first sample is taken once wrk is running; the last within 100 ms of its end.
  const first = samples[1] ?? samples[0];
  const last = samples.at(-1);
  const utilisation = first && last && last.t > first.t ? (last.cpu - first.cpu) / ((last.t - first.t) / 1000) : 0;
  return { ...parseWrk(out), generatorCpuUtilisation: utilisation };
}

/** autocannon in this process (pinned by the caller); its CPU use is this process's. */
async function cannon(o: LoadOptions): Promise<LoadResult> {
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const instance = autocannon({
    url: o.url,
    connections: o.connections,
    pipelining: o.pipelining,
    duration: o.seconds,
    ...(o.rate > 0 ? { overallRate: o.rate } : {}),
    headers: { ...o.headers },
  });
  stopCurrent = () => instance.stop();
  const result = await instance;
  stopCurrent = undefined;
  const self = process.cpuUsage(self0);
  const wall = (performance.now() - t0) / 1000;
  return {
    requests2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    durationSeconds: result.duration,
    requestsPerSec: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    generatorCpuUtilisation: (self.user + self.system) / 1e6 / wall,
  };
}

export function runLoad(generator: GeneratorName, o: LoadOptions): Promise<LoadResult> {
  return generator === 'wrk' ? wrk(o) : cannon(o);
}
