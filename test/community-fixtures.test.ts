/**
 * The community area's labelled chat sets (test/fixtures/community/README.md): the held-out regression set that
 * the model's accuracy floor is asserted on, and the development set for tuning. This test holds their format
 * and their make-up (sizes, label mix, categories, hard cases, protocol names) and keeps them apart from each
 * other and from the stand-ins' phrase bank, so that the accuracy measured on them is measured on unseen text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../src/registry/index.js';
import { PHRASES } from '../src/sandbox/standins/social/phrases.js';

const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;
const CATEGORIES = [
  'Scams and Security',
  'Governance and Voting',
  'DeFi and Yield Farming',
  'Technical Discussions and Support',
  'Price and Market Discussions',
  'Data and Analytics',
  'Trading and Tokens',
  'Community and Communication',
  'Other',
] as const;

interface Row {
  readonly line: number;
  readonly text: string;
  readonly sentiment: string;
  readonly category: string;
}

function readSet(name: string): { header: string; rows: Row[]; raw: string } {
  const raw = readFileSync(new URL(`./fixtures/community/${name}`, import.meta.url), 'utf8');
  const lines = raw.split('\n');
  const header = lines[0]!;
  const rows = lines.slice(1, raw.endsWith('\n') ? -1 : undefined).map((l, i) => {
    const cells = l.split('\t');
    expect(cells.length, `${name}:${i + 2} has 3 tab-separated columns: ${l}`).toBe(3);
    const [text, sentiment, category] = cells as [string, string, string];
    return { line: i + 2, text, sentiment, category };
  });
  return { header, rows, raw };
}

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

const heldOut = readSet('labelled-chat.tsv');
const dev = readSet('dev-chat.tsv');

describe.each([
  ['labelled-chat.tsv', heldOut, { min: 550, max: 5000, perCategory: 25 }],
  ['dev-chat.tsv', dev, { min: 180, max: 260, perCategory: 10 }],
] as const)('%s', (name, set, limits) => {
  it('has the agreed header, ends with a newline and has no blank or padded lines', () => {
    expect(set.header).toBe('text\tsentiment\tcategory');
    expect(set.raw.endsWith('\n')).toBe(true);
    expect(set.raw).not.toMatch(/\r/);
    for (const r of set.rows) {
      expect(r.text.length, `${name}:${r.line}`).toBeGreaterThan(0);
      expect(r.text, `${name}:${r.line}`).toBe(r.text.trim());
    }
  });

  it('uses only the known sentiment labels and high-level categories', () => {
    for (const r of set.rows) {
      expect(SENTIMENTS as readonly string[], `${name}:${r.line} ${r.text}`).toContain(r.sentiment);
      expect(CATEGORIES as readonly string[], `${name}:${r.line} ${r.text}`).toContain(r.category);
    }
  });

  it('has its size, every category and a realistic sentiment mix (about 35 % neutral and positive, 30 % negative)', () => {
    expect(set.rows.length).toBeGreaterThanOrEqual(limits.min);
    expect(set.rows.length).toBeLessThanOrEqual(limits.max);
    for (const c of CATEGORIES) {
      const inCategory = set.rows.filter((r) => r.category === c);
      expect(inCategory.length, c).toBeGreaterThanOrEqual(limits.perCategory);
      for (const s of SENTIMENTS)
        expect(
          inCategory.some((r) => r.sentiment === s),
          `${c} ${s}`,
        ).toBe(true);
    }
    for (const s of SENTIMENTS) {
      const share = set.rows.filter((r) => r.sentiment === s).length / set.rows.length;
      expect(share, s).toBeGreaterThan(0.27);
      expect(share, s).toBeLessThan(0.4);
    }
  });

  it('has no duplicate texts (ignoring case and spacing)', () => {
    const seen = new Map<string, number>();
    for (const r of set.rows) {
      const key = normalise(r.text);
      expect(seen.get(key), `${name}:${r.line} repeats line ${seen.get(key)}: ${r.text}`).toBeUndefined();
      seen.set(key, r.line);
    }
  });
});

describe('the labelled sets together', () => {
  it('share no text between the held-out and the development set', () => {
    const devTexts = new Set(dev.rows.map((r) => normalise(r.text)));
    const shared = heldOut.rows.filter((r) => devTexts.has(normalise(r.text))).map((r) => r.text);
    expect(shared).toEqual([]);
  });

  it('share no text with the phrase bank, whatever its slots are filled with', () => {
    const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const patterns = PHRASES.map(
      (p) =>
        new RegExp(
          `^${p.text
            .split(/\{[a-z]+\}/)
            .map((part) => escapeRegex(normalise(part)))
            .join('.+')}$`,
        ),
    );
    const copies = [...heldOut.rows, ...dev.rows].filter((r) => patterns.some((re) => re.test(normalise(r.text))));
    expect(copies.map((r) => r.text)).toEqual([]);
  });

  it('name every protocol and chain tracked on the channels in the held-out set', () => {
    const text = heldOut.rows.map((r) => r.text.toLowerCase()).join('\n');
    const names = registry.socialSubjects('discord').map((s) => s.name.split(' ')[0]!.toLowerCase());
    expect(names.length).toBe(32);
    expect(names.filter((n) => !text.includes(n))).toEqual([]);
  });

  it('hold the hard cases in the held-out set: crypto slang, emoji, caps, negation, "but" and neutral questions', () => {
    const has = (re: RegExp) => expect(heldOut.rows.filter((r) => re.test(r.text)).length, String(re));
    for (const word of [
      'rekt',
      'rug',
      'wagmi',
      'ngmi',
      'ser',
      'wen',
      'gm',
      'fud',
      'ape',
      'moon',
      'depeg',
      'ponzi',
      'hodl',
    ]) {
      has(new RegExp(`\\b${word}`, 'i')).toBeGreaterThanOrEqual(1);
    }
    has(/so over/i).toBeGreaterThanOrEqual(2);
    has(/we'?re (so )?back/i).toBeGreaterThanOrEqual(2);
    for (const emoji of ['🚀', '💀', '📉', '🔥', '😭']) has(new RegExp(emoji, 'u')).toBeGreaterThanOrEqual(2);
    has(/\b[A-Z]{4,}\b/).toBeGreaterThanOrEqual(10);
    has(/!/).toBeGreaterThanOrEqual(8);
    has(/\b(not|no|never|can't|don't|didn't)\b/i).toBeGreaterThanOrEqual(30);
    has(/\bbut\b/i).toBeGreaterThanOrEqual(5);
    const neutralQuestions = heldOut.rows.filter((r) => r.sentiment === 'neutral' && r.text.includes('?'));
    expect(neutralQuestions.length).toBeGreaterThanOrEqual(100);
    // Slang alone does not decide: the same words carry each label somewhere in the set.
    const labelsOf = (re: RegExp) => new Set(heldOut.rows.filter((r) => re.test(r.text)).map((r) => r.sentiment));
    expect(labelsOf(/\bnot\b/i)).toEqual(new Set(['positive', 'negative', 'neutral']));
    expect(labelsOf(/\bwen\b/i)).toEqual(new Set(['neutral']));
  });
});
