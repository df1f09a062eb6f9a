import { describe, expect, it } from 'vitest';
import { analyzeMessage, MODEL_VERSION } from './analyze.js';
import { loadModelLexicon } from './lexicon-file.js';

const lexicon = loadModelLexicon();

describe('analyzeMessage', () => {
  const cases: [string, Partial<ReturnType<typeof analyzeMessage>>][] = [
    [
      'withdrawals paused and my funds are stuck 😭',
      {
        sentiment: 'negative',
        english: true,
        spam: false,
        topic: { mid: 'Transaction and Wallet Issues', high: 'Technical Discussions and Support' },
      },
    ],
    [
      'DM me for a free airdrop discord.gg/abc123',
      { spam: true, spamSignals: { inviteLink: true, dmOffer: true, massMention: false } },
    ],
    ['Hola, alguien sabe como reclamar los tokens de la pool?', { english: false }],
    [
      'gm',
      {
        sentiment: 'neutral',
        contentHash: null,
        topic: { mid: 'Greetings and Community Chat', high: 'Community and Communication' },
      },
    ],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(analyzeMessage(text, lexicon)).toMatchObject(expected);
  });
  it('gives the compound it labels by', () => {
    const a = analyzeMessage('great work team, LFG', lexicon);
    expect(a.compound).toBeGreaterThanOrEqual(0.05);
    expect(a.sentiment).toBe('positive');
    expect(MODEL_VERSION).toMatch(/^1\.0\.0 /);
  });
});
