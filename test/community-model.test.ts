/**
 * The community language model against the held-out labelled chat set (test/fixtures/community/labelled-chat.tsv,
 * written by another engineer independently of the model's lexicon and taxonomy; the model was tuned only on
 * dev-chat.tsv). Floors from issue 16: sentiment ≥ 0.80 and high-level topic ≥ 0.80. The confusion figures are
 * printed so that docs/methodology/community-social.md can show them.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HIGH_LEVEL_CATEGORIES } from '../src/areas/community/model/topics.js';
import { type Evaluation, evaluate, readLabelled } from './support/community-labels.js';

function print(name: string, e: Evaluation): void {
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const lines = [
    `${name}: ${e.lines} lines; sentiment ${pct(e.sentimentAccuracy)}, high-level topic ${pct(e.topicAccuracy)}`,
    'sentiment confusion (rows: label, columns: model):',
    ...['positive', 'neutral', 'negative'].map(
      (t) =>
        `  ${t.padEnd(9)} ${['positive', 'neutral', 'negative'].map((g) => String(e.sentimentConfusion[t]?.[g] ?? 0).padStart(5)).join('')}`,
    ),
    'topic confusion (label → model: count, when not equal):',
    ...HIGH_LEVEL_CATEGORIES.map((t) => {
      const row = e.topicConfusion[t] ?? {};
      const total = Object.values(row).reduce((a, b) => a + b, 0);
      const wrong = Object.entries(row)
        .filter(([g]) => g !== t)
        .map(([g, n]) => `${g} ${n}`)
        .join('; ');
      return `  ${t}: ${row[t] ?? 0}/${total}${wrong ? ` (${wrong})` : ''}`;
    }),
  ];
  console.log(lines.join('\n'));
}

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/community');

describe('the community language model on the held-out labelled set', () => {
  const lines = readLabelled(path.join(FIXTURES, 'labelled-chat.tsv'));
  it('has at least 500 labelled lines with the agreed labels', () => {
    expect(lines.length).toBeGreaterThanOrEqual(500);
    for (const l of lines) {
      expect(['positive', 'negative', 'neutral']).toContain(l.sentiment);
      expect(HIGH_LEVEL_CATEGORIES as readonly string[]).toContain(l.category);
    }
  });
  it('reaches the floors: sentiment ≥ 0.80, high-level topic ≥ 0.80', () => {
    const e = evaluate(lines);
    print('held-out', e);
    expect(e.sentimentAccuracy).toBeGreaterThanOrEqual(0.8);
    expect(e.topicAccuracy).toBeGreaterThanOrEqual(0.8);
  });
});
