/**
 * Summarises V8 CPU profiles of a `npm run bench:api -- --cpu-prof` run: where a server's time goes during the
 * measured runs only (start-up and warm-up are left out), by module and by function, as a share of busy time and
 * as CPU µs per request.
 *
 *   node --import tsx bench/api/profile.ts .bench/api-<ts>.json [service-info|service-warn|bare] [--top 40] [--match text]
 *   node --import tsx bench/api/profile.ts some.cpuprofile             (a whole profile, no per-request figures)
 *
 * `--match` keeps only functions whose name or file contains the text; inclusive time then shows what one feature
 * costs (e.g. `--match pino`, `--match rate-limit`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
}
interface Results {
  readonly profiles: string | null;
  readonly runs: readonly { target: string; requests2xx: number; windowUs: readonly [number, number] }[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '40' }, match: { type: 'string' } },
  allowPositionals: true,
});
const input = positionals[0];
if (!input) {
  process.stderr.write(
    'usage: node --import tsx bench/api/profile.ts <results.json> [service|bare] | <file.cpuprofile>\n' +
      '       [--top N] [--match text]\n',
  );
  process.exit(2);
}
const top = Number(values.top);
// `… | head` closes the pipe early: stop quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

let files: string[];
let windows: (readonly [number, number])[] | undefined;
let requests: number | undefined;
if (input.endsWith('.json')) {
  const results = JSON.parse(readFileSync(input, 'utf8')) as Results;
  const target = positionals[1] ?? 'service-info';
  if (!results.profiles) throw new Error(`${input}: the run was not made with --cpu-prof`);
  const dir = path.resolve(ROOT, results.profiles, target);
  // Every thread of the server (the main thread and tsx's loader worker, idle once started).
  files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  const runs = results.runs.filter((r) => r.target === target);
  windows = runs.map((r) => r.windowUs);
  requests = runs.reduce((a, r) => a + r.requests2xx, 0);
} else {
  files = [input];
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  if (bench !== -1) return url.slice(bench + 1);
  return url.replace(/^file:\/\//, '');
}

function moduleOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return `(${functionName || 'native'})`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  return shortUrl(url);
}

const keyOf = (f: CallFrame) => `${f.functionName || '(anonymous)'}  ${shortUrl(f.url)}:${f.lineNumber + 1}`;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const modules = new Map<string, number>();
let total = 0;
let idle = 0;

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (windows && !windows.some(([a, b]) => t >= a && t < b)) continue;
    const leaf = byId.get(profile.samples[i]!)!;
    total += dt;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    add(self, keyOf(leaf.callFrame), dt);
    add(modules, moduleOf(leaf.callFrame), dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const k = keyOf(byId.get(id)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      add(inclusive, k, dt);
    }
  }
}

const busy = total - idle;
const cell = (us: number) =>
  `${((us / busy) * 100).toFixed(1).padStart(5)} %` +
  (requests ? `  ${(us / requests).toFixed(2).padStart(7)} µs/req` : '');
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
const matches = (k: string) => !values.match || k.toLowerCase().includes(values.match.toLowerCase());

process.stdout.write(
  `${files.length} profile(s)${windows ? `, ${windows.length} measured run(s), ${requests} requests` : ''}: ` +
    `sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s in JS threads` +
    (requests
      ? ` = ${(busy / requests).toFixed(1)} µs/req (JS threads only: libuv/GC helper threads are not profiled)`
      : '') +
    '\n',
);
process.stdout.write('\n== self time by module ==\n');
for (const [k, v] of sorted(modules).slice(0, top)) process.stdout.write(`${cell(v)}  ${k}\n`);
process.stdout.write('\n== self time by function ==\n');
for (const [k, v] of sorted(self)
  .filter(([k]) => matches(k))
  .slice(0, top))
  process.stdout.write(`${cell(v)}  ${k}\n`);
process.stdout.write('\n== inclusive time by function ==\n');
for (const [k, v] of sorted(inclusive)
  .filter(([k]) => matches(k))
  .slice(0, top))
  process.stdout.write(`${cell(v)}  ${k}\n`);
