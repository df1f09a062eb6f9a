/**
 * The topic classifier: picks a message's topic in the taxonomy (`topics-taxonomy.ts`). Pure.
 *
 * Classification: the message is lower-cased and split into words (letters, digits, apostrophes, `$`; numbers
 * read as `<num>`, handles such as `@rio_lp` dropped); each keyword found adds its weight to its topic (a keyword
 * counts once per message), phrases are matched on consecutive words and their words then count no more as single
 * keywords. The category is the one whose topics weigh most together, the topic its heaviest; ties go to the one
 * listed first (the taxonomy's order puts those whose misreading costs most first: scams and hacks before everything
 * else). A message with no keyword is `Other`.
 */
import {
  HIGH_LEVEL_CATEGORIES,
  type HighLevelCategory,
  type MidLevelTopic,
  OTHER_TOPIC,
  TAXONOMY,
} from './topics-taxonomy.js';

export {
  HIGH_LEVEL_CATEGORIES,
  type HighLevelCategory,
  type MidLevelTopic,
  OTHER_TOPIC,
  TAXONOMY,
  TAXONOMY_VERSION,
} from './topics-taxonomy.js';

interface KeywordHit {
  readonly topic: number;
  readonly weight: number;
}

interface TaxonomyIndex {
  readonly words: ReadonlyMap<string, readonly KeywordHit[]>;
  /** First word → phrases starting with it (words and hits), longest first. */
  readonly phrases: ReadonlyMap<string, readonly { readonly words: readonly string[]; readonly hit: KeywordHit }[]>;
}

function buildIndex(taxonomy: readonly MidLevelTopic[]): TaxonomyIndex {
  const words = new Map<string, KeywordHit[]>();
  const phrases = new Map<string, { words: string[]; hit: KeywordHit }[]>();
  taxonomy.forEach((t, topic) => {
    for (const [k, weight] of Object.entries(t.keywords)) {
      const parts = k.split(' ');
      if (parts.length === 1) {
        const list = words.get(k) ?? [];
        list.push({ topic, weight });
        words.set(k, list);
      } else {
        const list = phrases.get(parts[0]!) ?? [];
        list.push({ words: parts, hit: { topic, weight } });
        phrases.set(parts[0]!, list);
      }
    }
  });
  for (const list of phrases.values()) list.sort((a, b) => b.words.length - a.words.length);
  return { words, phrases };
}

const INDEX = buildIndex(TAXONOMY);

/** The words of a text for topic matching: lower-case runs of letters, digits, `'`, `-`, `/`, `$` and `%`. */
const WORD = /[\p{L}\p{N}'$%/@_-]+/gu;
const NUMBER = /^\d[\d.,]*$/;

export function topicWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    let w = m[0];
    // Leading and trailing quotes, slashes and dashes are punctuation here ("'gm'", "-- note").
    w = w.replace(/^['/-]+|['/-]+$/g, '');
    if (w.startsWith('$') && w.length > 1) {
      out.push('$');
      w = w.slice(1);
    }
    // A handle (@rio_lp) names someone, not a topic.
    if (w.startsWith('@')) continue;
    if (w.endsWith('%') && w.length > 1) {
      const n = w.slice(0, -1);
      out.push(NUMBER.test(n) ? '<num>' : n, '%');
      continue;
    }
    if (w) out.push(NUMBER.test(w) ? '<num>' : w);
  }
  return out;
}

export interface TopicResult {
  readonly mid: string;
  readonly high: HighLevelCategory;
  /** The winning category's total weight (0 for `Other`). */
  readonly weight: number;
}

/** The topic of a text: the mid-level topic with the largest keyword weight, and its category; `Other` if none. */
export function classifyTopic(text: string): TopicResult {
  const words = topicWords(text);
  const totals = new Array<number>(TAXONOMY.length).fill(0);
  const seen = new Set<string>();
  const add = (key: string, hits: readonly KeywordHit[]) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const h of hits) totals[h.topic]! += h.weight;
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const candidates = INDEX.phrases.get(w);
    let matched = 0;
    if (candidates) {
      for (const p of candidates) {
        if (i + p.words.length > words.length) continue;
        let ok = true;
        for (let k = 1; k < p.words.length; k++) {
          if (words[i + k] !== p.words[k]) {
            ok = false;
            break;
          }
        }
        if (ok) {
          add(p.words.join(' '), [p.hit]);
          matched = Math.max(matched, p.words.length);
        }
      }
    }
    if (matched > 0) {
      i += matched - 1;
      continue;
    }
    const hits = INDEX.words.get(w);
    if (hits) add(w, hits);
  }
  // The category is the one whose topics weigh most together (a message on lending and a stablecoin's rate is
  // DeFi even when each topic alone weighs less than another category's one topic); the topic, its heaviest.
  const byHigh = new Map<HighLevelCategory, number>();
  totals.forEach((t, i) => {
    if (t > 0) byHigh.set(TAXONOMY[i]!.high, (byHigh.get(TAXONOMY[i]!.high) ?? 0) + t);
  });
  let high: HighLevelCategory | undefined;
  let highWeight = 0;
  for (const c of HIGH_LEVEL_CATEGORIES) {
    const w = byHigh.get(c) ?? 0;
    if (w > highWeight) {
      high = c;
      highWeight = w;
    }
  }
  if (high === undefined) return { mid: OTHER_TOPIC, high: 'Other', weight: 0 };
  let best = -1;
  totals.forEach((t, i) => {
    if (TAXONOMY[i]!.high === high && (best < 0 || t > totals[best]!)) best = i;
  });
  const topic = TAXONOMY[best]!;
  return { mid: topic.name, high: topic.high, weight: highWeight };
}
