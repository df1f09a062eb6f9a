/**
 * The labelled chat sets of the community area (test/fixtures/community/*.tsv) and the model's accuracy on them.
 */
import { readFileSync } from 'node:fs';
import { analyzeMessage } from '../../src/areas/community/model/analyze.js';
import { loadModelLexicon } from '../../src/areas/community/model/lexicon-file.js';

export interface LabelledLine {
  readonly text: string;
  readonly sentiment: string;
  readonly category: string;
}

/** Reads a labelled TSV: a header line `text	sentiment	category`, then one line per message. */
export function readLabelled(file: string): LabelledLine[] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const header = lines[0]!.split('\t');
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${file}: no column ${name}`);
    return i;
  };
  const [t, s, c] = [col('text'), col('sentiment'), col('category')];
  return lines.slice(1).map((l) => {
    const f = l.split('\t');
    return { text: f[t]!, sentiment: f[s]!.trim(), category: f[c]!.trim() };
  });
}

export interface Evaluation {
  readonly lines: number;
  readonly sentimentAccuracy: number;
  readonly topicAccuracy: number;
  readonly sentimentConfusion: Record<string, Record<string, number>>;
  readonly topicConfusion: Record<string, Record<string, number>>;
}

export function evaluate(lines: readonly LabelledLine[]): Evaluation {
  const lexicon = loadModelLexicon();
  let sentimentHits = 0;
  let topicHits = 0;
  const sentimentConfusion: Record<string, Record<string, number>> = {};
  const topicConfusion: Record<string, Record<string, number>> = {};
  const bump = (m: Record<string, Record<string, number>>, truth: string, got: string) => {
    m[truth] ??= {};
    m[truth][got] = (m[truth][got] ?? 0) + 1;
  };
  for (const l of lines) {
    const a = analyzeMessage(l.text, lexicon);
    if (a.sentiment === l.sentiment) sentimentHits++;
    if (a.topic.high === l.category) topicHits++;
    bump(sentimentConfusion, l.sentiment, a.sentiment);
    bump(topicConfusion, l.category, a.topic.high);
  }
  return {
    lines: lines.length,
    sentimentAccuracy: sentimentHits / lines.length,
    topicAccuracy: topicHits / lines.length,
    sentimentConfusion,
    topicConfusion,
  };
}
