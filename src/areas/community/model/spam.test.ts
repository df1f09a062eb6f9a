import { describe, expect, it } from 'vitest';
import { DUPLICATE_WINDOW_SECONDS, duplicateSpam, spamSignals } from './spam.js';
import { contentHash, normaliseContent } from './text.js';

describe('per-message spam signals', () => {
  const cases: [string, { inviteLink?: boolean; dmOffer?: boolean; massMention?: boolean }][] = [
    ['join us discord.gg/free-mint', { inviteLink: true }],
    ['https://discord.com/invite/abc', { inviteLink: true }],
    ['t.me/+xyz for signals', { inviteLink: true }],
    ['DM me for a guaranteed 10x', { dmOffer: true }],
    ['dm for collab', { dmOffer: true }],
    ['check your DMs, support replied', { dmOffer: true }],
    ['@everyone free airdrop', { massMention: true }],
    ['<@1> <@2> <@3> <@4> <@5> claim now', { massMention: true }],
    ['<@1> <@1> <@1> <@1> <@1> hi', {}],
    ['thanks <@123> for the help', {}],
    ['the DMM protocol is admirable', {}],
    ['the discord server is busy today', {}],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(spamSignals(text)).toEqual({ inviteLink: false, dmOffer: false, massMention: false, ...expected });
  });
});

describe('duplicate spam across authors', () => {
  const raid = 'Claim your free airdrop now at scam dot link';
  const h = contentHash(raid)!;
  const T = 1_800_000_000;

  it('normalises case, space, mentions and query strings', () => {
    expect(normaliseContent(' Claim  NOW <@42> https://x.io/a?ref=1 ')).toBe('claim now https://x.io/a');
    expect(contentHash(`${raid.toUpperCase()}  <@9>`)).toBe(h);
    expect(contentHash('gm')).toBeNull();
    expect(contentHash('something else entirely, long enough')).not.toBe(h);
  });

  const cases: [string, { contentHash: string | null; author: string; at: number }[], number[]][] = [
    [
      'three authors within the hour',
      [0, 1, 2].map((i) => ({ contentHash: h, author: `a${i}`, at: T + i * 600 })),
      [0, 1, 2],
    ],
    ['two authors only', [0, 1, 2].map((i) => ({ contentHash: h, author: `a${i % 2}`, at: T + i })), []],
    [
      'three authors spread over more than an hour',
      [0, 1, 2].map((i) => ({ contentHash: h, author: `a${i}`, at: T + i * (DUPLICATE_WINDOW_SECONDS / 2 + 1) })),
      [],
    ],
    [
      'a fourth copy later joins a new window; an early lone copy stays',
      [
        { contentHash: h, author: 'x', at: T - 7200 },
        { contentHash: h, author: 'a', at: T },
        { contentHash: h, author: 'b', at: T + 10 },
        { contentHash: h, author: 'c', at: T + 20 },
        { contentHash: h, author: 'd', at: T + 3000 },
      ],
      [1, 2, 3, 4],
    ],
    ['short messages are never duplicates', [0, 1, 2].map((i) => ({ contentHash: null, author: `a${i}`, at: T })), []],
  ];
  it.each(cases)('%s', (_, messages, flagged) => {
    expect([...duplicateSpam(messages)].sort((a, b) => a - b)).toEqual(flagged);
  });
});
