import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GEOMETRIC_FLOOR, roundTo } from '../../core/score.js';
import {
  ACTIVITY_ANCHORS,
  BREADTH_ANCHORS,
  SENTIMENT_PRIOR,
  SOCIAL_METHODOLOGY,
  type SocialWindow,
  socialScoreAt,
  UNSAFE_SHARE_AT_ZERO,
  WEIGHTS,
} from './score.js';

/**
 * The social score (`community.social@1.2.0`) on hand-built windows: each component by its definition in
 * docs/methodology/community-social.md, the page's weights, the weighted geometric mean, shrinkage on few
 * messages, and the gap rules (an incompletely read channel has no score; no content, no sentiment).
 */
const T = Date.UTC(2026, 10, 20, 23, 59, 59) / 1000;
const logMap = (x: number, a: { zero_at: number; one_at: number }) =>
  Math.min(1, Math.max(0, Math.log(x / a.zero_at) / Math.log(a.one_at / a.zero_at)));
const window = (over: Partial<SocialWindow> = {}): SocialWindow => ({
  complete: true,
  contentVisible: true,
  counted: 220,
  spam: 20,
  authors: 40,
  scored: 180,
  compoundSum: 54,
  scamTalk: 4,
  ...over,
});
type Rec = ReturnType<typeof socialScoreAt>;
const value = (r: Rec, name: string) => r.components.find((c) => c.name === name)!.value;

function geometric(values: Record<keyof typeof WEIGHTS, number>): number {
  let log = 0;
  for (const [k, w] of Object.entries(WEIGHTS)) {
    log += w * Math.log(Math.max(roundTo(values[k as keyof typeof WEIGHTS], 4), GEOMETRIC_FLOOR));
  }
  return roundTo(Math.exp(log), 4);
}

describe('the social score on hand-built windows', () => {
  it('computes each component by its definition and combines them geometrically', () => {
    const r = socialScoreAt(window(), T, false);
    // The record names the 24 hours it scores (here the UTC day ending at T).
    expect(r.score_window).toEqual({ from: '2026-11-20T00:00:00Z', to: '2026-11-20T23:59:59Z' });
    expect(socialScoreAt(window(), T - 12 * 3600, true).score_window).toEqual({
      from: '2026-11-19T12:00:00Z',
      to: '2026-11-20T11:59:59Z',
    });
    const expected = {
      activity: logMap(200, ACTIVITY_ANCHORS),
      breadth: logMap(40, BREADTH_ANCHORS),
      sentiment: (54 / (180 + SENTIMENT_PRIOR) + 1) / 2,
      safety: 1 - 24 / (220 + SENTIMENT_PRIOR) / UNSAFE_SHARE_AT_ZERO,
    };
    for (const [k, v] of Object.entries(expected)) expect(value(r, k), k).toBe(roundTo(v, 4));
    expect(r.score).toBe(geometric(expected));
    expect(r).toMatchObject({
      methodology: SOCIAL_METHODOLOGY,
      aggregation: 'weighted-geometric-mean',
      date: '2026-11-20',
      partial: false,
      gap_reason: null,
      timestamp: '2026-11-20T23:59:59Z',
      evidence: 1,
    });
  });

  it('uses the weights of the methodology page', () => {
    const page = readFileSync(
      path.resolve(import.meta.dirname, '../../../docs/methodology/community-social.md'),
      'utf8',
    );
    const rows = [...page.matchAll(/^\| `(\w+)` \| ([\d.]+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(WEIGHTS);
    expect(page).toContain(SOCIAL_METHODOLOGY);
  });

  const cases: [string, Partial<SocialWindow>, (r: Rec) => void][] = [
    [
      'few messages: sentiment shrunk toward neutral',
      { counted: 3, spam: 0, authors: 3, scored: 3, compoundSum: 2.7, scamTalk: 0 },
      (r) => expect(value(r, 'sentiment')).toBe(roundTo((2.7 / 23 + 1) / 2, 4)),
    ],
    [
      'many messages: sentiment close to the mean',
      { counted: 5000, spam: 0, authors: 300, scored: 5000, compoundSum: 4500, scamTalk: 0 },
      (r) => expect(value(r, 'sentiment')!).toBeGreaterThan(0.94),
    ],
    [
      'a raid: safety 0 caps the score low',
      { counted: 600, spam: 400, authors: 60, scored: 190, compoundSum: 20, scamTalk: 10 },
      (r) => {
        expect(value(r, 'safety')).toBe(0);
        expect(r.score!).toBeLessThan(0.45);
      },
    ],
    [
      'spam does not count as activity',
      { counted: 1000, spam: 999, authors: 1, scored: 1, compoundSum: 0, scamTalk: 0 },
      (r) => expect(value(r, 'activity')).toBe(0),
    ],
    [
      'a silent day: activity and breadth 0, neutral sentiment, full safety, a low score',
      { counted: 0, spam: 0, authors: 0, scored: 0, compoundSum: 0, scamTalk: 0 },
      (r) => {
        expect([value(r, 'activity'), value(r, 'breadth'), value(r, 'sentiment'), value(r, 'safety')]).toEqual([
          0, 0, 0.5, 1,
        ]);
        expect(r.grade).toBe('E');
      },
    ],
    [
      'no message content: sentiment and safety unknown, too little evidence for a score',
      { contentVisible: false, scored: 0, compoundSum: 0, scamTalk: 0, spam: 0 },
      (r) => {
        expect(r.score).toBeNull();
        expect(r.gap_reason).toBe('insufficient_evidence');
        expect(r.components.find((c) => c.name === 'sentiment')).toMatchObject({ value: null, gap_reason: 'no_data' });
      },
    ],
    [
      'a channel not read completely: no score, its gap reason, never a zero',
      { complete: false, gapReason: 'source_error' },
      (r) => {
        expect(r).toMatchObject({ score: null, grade: null, gap_reason: 'source_error', components: [] });
      },
    ],
  ];
  it.each(cases)('%s', (_, over, check) => check(socialScoreAt(window(over), T, false)));

  it('scores higher for a friendlier, busier, broader, safer day', () => {
    const base = socialScoreAt(window(), T, false).score!;
    expect(socialScoreAt(window({ compoundSum: 120 }), T, false).score!).toBeGreaterThan(base);
    expect(socialScoreAt(window({ counted: 1020, spam: 20 }), T, false).score!).toBeGreaterThan(base);
    expect(socialScoreAt(window({ authors: 150 }), T, false).score!).toBeGreaterThan(base);
    expect(socialScoreAt(window({ scamTalk: 0, spam: 0, counted: 200 }), T, false).score!).toBeGreaterThan(
      socialScoreAt(window({ scamTalk: 30, spam: 0, counted: 200 }), T, false).score!,
    );
  });
});
