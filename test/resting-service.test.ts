/**
 * Issue 31 item 1, a service at rest: `start` on the embedded default (SQLite, the sandbox in live mode with its
 * 5-second blocks), no API traffic. After the first start has settled (its backfills done), over a window of a few
 * minutes:
 *
 * - a computation whose inputs keep moving publishes at most once every `PUBLISH_EVERY_SECONDS` (60 s by default);
 *   before, each chain-reading computation republished on nearly every block (a publication every ~11 s each);
 * - a run that found nothing to do ("up to date", "inputs moved; the next publication in …") returns within
 *   `IDLE_RUN_MS`;
 * - the CPU time of every process of the service's tree (the service, each chain's anvil, the stand-ins) stays under
 *   `CPU_BOUND`: this project's measured ceiling with a margin (docs/benchmarks.md, "At rest"), not yet issue 31's
 *   budget (10 % of one core), which stays open. Resident memory is printed, not bounded: after a first start it
 *   peaks at 3.5 GiB (measured 3.6 GiB here, 2.3–3.5 GiB in the soak bench), far from the issue's 1.5 GiB; the
 *   benchmarks page says where it is.
 *
 * It runs alone after the suite (vitest.config.ts: a CPU figure beside other test files measures those files).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processTree, TICK } from '../bench/support/processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const WINDOW_MS = 180_000;
const PUBLISH_EVERY_SECONDS = 60;
const IDLE_RUN_MS = 1000;
/**
 * % of one core, all processes together: this project's measured ceiling with a margin (20–25 % on a loaded 2-vCPU VM
 * before the derivatives area, 48.2 % on CI since the sandbox's GMX trades on Arbitrum: docs/benchmarks.md, "At rest,
 * third look"); the budget is 10 %.
 */
const CPU_BOUND = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-rest-'));
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    process.kill(child.pid!, 'SIGINT');
    const timer = setTimeout(() => child!.kill('SIGKILL'), 120_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}, 180_000);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Run {
  readonly job: string;
  readonly atMs: number;
  readonly seconds: number;
  readonly summary: string;
}

interface StatusJob {
  readonly name: string;
  readonly running: boolean;
}

describe('a service at rest', () => {
  it(
    'publishes each computation at most once a minute, returns at once when there is nothing to do, and stays under its CPU bound',
    async () => {
      const port = await freePort();
      // The embedded default: CI's DATABASE_URL and REDIS_URL would make it another deployment.
      const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
      child = spawn('sh', ['-c', `exec ${JSON.stringify(process.execPath)} --import tsx src/cli/run.ts start`], {
        cwd: ROOT,
        env: { ...inherited, DATA_DIR: dir, PORT: String(port), LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const runs: Run[] = [];
      let pending = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.startsWith('{')) continue;
          try {
            const o = JSON.parse(line) as {
              msg?: string;
              job?: string;
              seconds?: number;
              summary?: string;
              time?: number;
            };
            if (o.msg === 'job finished' && o.job) {
              runs.push({ job: o.job, atMs: Date.now(), seconds: o.seconds ?? 0, summary: o.summary ?? '' });
            }
          } catch {
            // a line that is not one of the service's JSON lines
          }
        }
      });
      child.stderr!.resume();
      const base = `http://127.0.0.1:${port}`;

      // Ready: every computed path served once (the first start).
      const readyBy = Date.now() + 15 * 60_000;
      for (;;) {
        expect(child.exitCode, 'the service exited before /ready').toBeNull();
        expect(Date.now() < readyBy, 'no /ready within 15 minutes').toBe(true);
        const ok = await fetch(`${base}/ready`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await sleep(1000);
      }
      // Settled: the first start's tail done (the GitHub and Discord backfills end after /ready): twice in a row, 10 s
      // apart, no job running whose last run ended more than 20 s ago (a run in progress that long).
      const settledBy = Date.now() + 15 * 60_000;
      let quietPolls = 0;
      while (quietPolls < 2) {
        expect(Date.now() < settledBy, 'the first start did not settle within 15 minutes of /ready').toBe(true);
        await sleep(10_000);
        const res = await fetch(`${base}/status`, { headers: { accept: 'application/json' } });
        const status = ((await res.json()) as { data: { jobs: StatusJob[] } }).data;
        const lastEnd = (job: string) => Math.max(0, ...runs.filter((r) => r.job === job).map((r) => r.atMs));
        const long = status.jobs.filter((j) => j.running && Date.now() - lastEnd(j.name) > 20_000);
        quietPolls = long.length ? 0 : quietPolls + 1;
      }

      // The window.
      const startMs = Date.now();
      const before = new Map(processTree(child.pid!).map((p) => [p.pid, p.cpuTicks]));
      let rssPeak = 0;
      while (Date.now() - startMs < WINDOW_MS) {
        await sleep(5000);
        const rss = processTree(child.pid!).reduce((a, p) => a + p.rssBytes, 0) / 2 ** 20;
        rssPeak = Math.max(rssPeak, rss);
      }
      const after = processTree(child.pid!);
      const seconds = (Date.now() - startMs) / 1000;
      const cpuSeconds = after.reduce((a, p) => a + (p.cpuTicks - (before.get(p.pid) ?? 0)), 0) / TICK;
      const cpuPct = (cpuSeconds / seconds) * 100;
      const inWindow = runs.filter((r) => r.atMs >= startMs);
      const published = new Map<string, number>();
      for (const r of inWindow) {
        if (r.summary.startsWith('published ')) published.set(r.job, (published.get(r.job) ?? 0) + 1);
      }
      const idle = inWindow.filter((r) => /^up to date|^inputs moved; the next publication/.test(r.summary));
      const slowIdle = idle.filter((r) => r.seconds * 1000 > IDLE_RUN_MS);
      console.log(
        `at rest over ${seconds.toFixed(0)} s: CPU ${cpuPct.toFixed(1)} % of one core (${after.length} processes), ` +
          `RSS peak ${rssPeak.toFixed(0)} MiB; ${inWindow.length} runs, ${idle.length} with nothing to do ` +
          `(slowest ${Math.max(0, ...idle.map((r) => r.seconds)).toFixed(3)} s); publications ${JSON.stringify(Object.fromEntries(published))}`,
      );

      // The pace: a computation publishes at most once per interval (the window holds at most ⌈window/interval⌉ + 1),
      // plus, in a window across a UTC midnight, the publications that add the new day (a computation's `coverage`:
      // the ended day's last snapshot and the new day's first are not held back).
      const acrossMidnight = Math.floor(startMs / 86_400_000) !== Math.floor(Date.now() / 86_400_000);
      const most = Math.ceil(WINDOW_MS / 1000 / PUBLISH_EVERY_SECONDS) + 1 + (acrossMidnight ? 2 : 0);
      const chainComputations = ['dex.compute', 'lending.compute', 'oracles.compute', 'blockchain.compute'];
      for (const job of chainComputations) {
        expect(published.get(job) ?? 0, `${job}: publications in ${WINDOW_MS / 1000} s`).toBeLessThanOrEqual(most);
      }
      // Held-back runs happened (the chains moved) and cost little.
      expect(inWindow.some((r) => r.summary.startsWith('inputs moved; the next publication'))).toBe(true);
      expect(slowIdle.map((r) => `${r.job} ${r.seconds} s: ${r.summary}`)).toEqual([]);
      expect(cpuPct).toBeLessThan(CPU_BOUND);
    },
    45 * 60_000,
  );
});
