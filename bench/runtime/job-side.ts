/**
 * `start`'s job side on a worker thread or in a child process (issue 12): what each costs to start (until the job
 * side's module graph is loaded, from the build in dist/), in memory, and per message (a log line each way).
 * Run after `npm run build`: `node --import tsx bench/runtime/job-side.ts`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const ROOT = path.resolve(import.meta.dirname, '../..');
const graph = ['runtime/service.js', 'runtime/sources.js'].map((m) => pathToFileURL(path.join(ROOT, 'dist', m)).href);
const LINE = JSON.stringify({ level: 30, time: new Date().toISOString(), msg: 'job finished', pad: 'x'.repeat(150) });
const ROUND_TRIPS = 2000;

// The same body in both: load the job side's modules, say so with the RSS, then echo every message.
const body = (send: string, on: string) => `
for (const m of ${JSON.stringify(graph)}) await import(m);
${send}({ loaded: true, rss: process.memoryUsage().rss });
${on}((m) => ${send}(m));`;

async function thread() {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const worker = new Worker(
    `import('node:worker_threads').then(async ({ parentPort }) => { ${body('parentPort.postMessage.bind(parentPort)', "parentPort.on.bind(parentPort, 'message')")} })`,
    { eval: true },
  );
  const next = () => new Promise<{ rss?: number }>((resolve) => worker.once('message', resolve));
  await next();
  const startMs = performance.now() - t0;
  const memory = process.memoryUsage().rss - before;
  const t1 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const p = next();
    worker.postMessage({ type: 'log', line: LINE });
    await p;
  }
  const roundTripUs = ((performance.now() - t1) * 1000) / ROUND_TRIPS;
  await worker.terminate();
  return { startMs, memoryMb: memory / 2 ** 20, roundTripUs };
}

async function child() {
  const t0 = performance.now();
  const code = body('process.send.bind(process)', "process.on.bind(process, 'message')");
  const proc = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () => new Promise<{ rss?: number }>((resolve) => proc.once('message', resolve));
  const loaded = await next();
  const startMs = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const p = next();
    proc.send({ type: 'log', line: LINE });
    await p;
  }
  const roundTripUs = ((performance.now() - t1) * 1000) / ROUND_TRIPS;
  proc.kill();
  return { startMs, memoryMb: (loaded.rss ?? 0) / 2 ** 20, roundTripUs };
}

const runs = Number(process.argv[2] ?? 5);
const rows: string[] = [];
for (let i = 0; i < runs; i++) {
  const t = await thread();
  const c = await child();
  rows.push(
    `thread: start ${t.startMs.toFixed(0)} ms, +${t.memoryMb.toFixed(0)} MB RSS, round trip ${t.roundTripUs.toFixed(0)} µs | ` +
      `process: start ${c.startMs.toFixed(0)} ms, ${c.memoryMb.toFixed(0)} MB RSS, round trip ${c.roundTripUs.toFixed(0)} µs`,
  );
  process.stdout.write(`${rows.at(-1)}\n`);
}
