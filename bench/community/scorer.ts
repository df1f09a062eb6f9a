/**
 * Throughput of the community language model (`analyzeMessage`: VADER's rules with our lexicon, the topic
 * classifier, the spam signals, the language check and the content hash) on one core, over a generated corpus of
 * chat-like messages (fragments of our own, not the labelled sets or the stand-ins' phrase bank). Target: ≥ 50,000
 * messages/s (issue 16).
 *
 *   npm run bench:community -- [--messages 200000] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { analyzeMessage } from '../../src/areas/community/model/analyze.js';
import { loadModelLexicon } from '../../src/areas/community/model/lexicon-file.js';
import { classifyTopic } from '../../src/areas/community/model/topics.js';
import { polarityScores } from '../../src/areas/community/model/vader.js';

const { values: flags } = parseArgs({
  options: { messages: { type: 'string', default: '200000' }, seed: { type: 'string', default: '1' } },
});
const N = Number(flags.messages);

/** mulberry32: a small seeded generator, so that every run scores the same corpus. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OPENERS = ['', 'gm', 'ser', 'honestly', 'ngl', 'yo', 'hey team,', 'LOL', 'ok so', 'Hi everyone!', 'fwiw'];
const SUBJECTS = [
  'the pool',
  'my tx',
  'this token',
  'the new vault',
  'the proposal',
  'gas',
  'the bridge',
  'APY',
  'the UI',
  'price',
  'the airdrop',
  'liquidity',
];
const VERBS = ['is', 'was', 'looks', 'seems', 'feels', 'is not', "isn't", 'got', 'keeps being', 'will be'];
const COMPLEMENTS = [
  'great',
  'so over',
  'stuck pending',
  'bullish af',
  'rugged',
  'fine I guess',
  'really slow today',
  'to the moon 🚀🚀',
  'totally broken',
  'kind of meh',
  'a scam tbh',
  'insane!!!',
  'better than v2',
  'down bad 💀',
  'not financial advice',
];
const TAILS = [
  '',
  '',
  '?',
  '!!',
  ' lol',
  ' wagmi',
  ' 😭',
  ' — any idea why?',
  ' DM me for details',
  ' <@1234567890>',
  ' https://example.org/x?ref=7',
  ', thanks for the help 🙏',
  ' vote before quorum closes',
];

function corpus(n: number, seed: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const parts = [pick(OPENERS), pick(SUBJECTS), pick(VERBS), pick(COMPLEMENTS)];
    if (r() < 0.3) parts.push('and', pick(SUBJECTS), pick(VERBS), pick(COMPLEMENTS));
    out.push(parts.filter(Boolean).join(' ') + pick(TAILS));
  }
  return out;
}

function time(label: string, messages: readonly string[], f: (t: string) => unknown): number {
  // Warm-up: JIT and inline caches, then the timed pass.
  for (let i = 0; i < Math.min(20_000, messages.length); i++) f(messages[i]!);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let sink = 0;
  for (const m of messages) if (f(m)) sink++;
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const used = process.cpuUsage(c0);
  const cpu = (used.user + used.system) / 1e6;
  // Messages per second of this process's CPU time: one core's throughput whatever else shares the machine (the
  // wall-clock rate is shown beside it; on an idle core they agree).
  const rate = messages.length / cpu;
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(
    `${label.padEnd(22)} ${fmt(rate).padStart(10)} messages/s of CPU time (${cpu.toFixed(2)} s CPU; wall ${wall.toFixed(2)} s, ${fmt(messages.length / wall)}/s; ${sink})`,
  );
  return rate;
}

const lexicon = loadModelLexicon();
const messages = corpus(N, Number(flags.seed));
const avg = messages.reduce((s, m) => s + m.length, 0) / messages.length;
console.log(
  `corpus: ${N.toLocaleString('en-US')} messages, ${avg.toFixed(1)} characters on average; node ${process.version}`,
);
time('sentiment (VADER)', messages, (t) => polarityScores(t, lexicon));
time('topic', messages, (t) => classifyTopic(t));
const rate = time('analyzeMessage (all)', messages, (t) => analyzeMessage(t, lexicon));
console.log(rate >= 50_000 ? 'target met: ≥ 50,000 messages/s' : 'BELOW TARGET: < 50,000 messages/s');
