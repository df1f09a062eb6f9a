/**
 * Summarises a V8 CPU profile (from `npm run bench:api -- --cpu-prof`): where the service's time goes, by
 * function (self and inclusive time) and by module (self time).
 *
 *   node --import tsx bench/api/profile.ts .bench/api-<ts>-service.cpuprofile [--top 40] [--match text]
 *
 * `--match` lists only functions whose name or file contains the text (inclusive time shows what a feature
 * costs, e.g. `--match rate-limit`).
 */
import { readFileSync } from 'node:fs';
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
  readonly endTime: number;
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '40' }, match: { type: 'string' } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: node --import tsx bench/api/profile.ts <file.cpuprofile> [--top N] [--match text]\n');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
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

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const modules = new Map<string, number>();
let total = 0;
let idle = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const leaf = byId.get(profile.samples[i]!)!;
  total += dt;
  if (leaf.callFrame.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  self.set(keyOf(leaf.callFrame), (self.get(keyOf(leaf.callFrame)) ?? 0) + dt);
  modules.set(moduleOf(leaf.callFrame), (modules.get(moduleOf(leaf.callFrame)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const k = keyOf(byId.get(id)!.callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
}

const busy = total - idle;
const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`;
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
const matches = (k: string) => !values.match || k.toLowerCase().includes(values.match.toLowerCase());

process.stdout.write(
  `profile ${file}: ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s ` +
    `(${((busy / total) * 100).toFixed(0)} %); shares below are of busy time\n`,
);
process.stdout.write('\n== self time by module ==\n');
for (const [k, v] of sorted(modules).slice(0, top)) process.stdout.write(`${pct(v)}  ${k}\n`);
process.stdout.write('\n== self time by function ==\n');
for (const [k, v] of sorted(self)
  .filter(([k]) => matches(k))
  .slice(0, top))
  process.stdout.write(`${pct(v)}  ${k}\n`);
process.stdout.write('\n== inclusive time by function ==\n');
for (const [k, v] of sorted(inclusive)
  .filter(([k]) => matches(k))
  .slice(0, top))
  process.stdout.write(`${pct(v)}  ${k}\n`);
