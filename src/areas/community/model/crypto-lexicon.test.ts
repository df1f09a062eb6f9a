import { describe, expect, it } from 'vitest';
import { CRYPTO_LEXICON, CRYPTO_LEXICON_VERSION, cryptoValences, modelLexicon } from './crypto-lexicon.js';
import { readVaderLexiconText } from './lexicon-file.js';
import { parseVaderLexicon, polarityScores, sentimentLabel, sentimentLexicon } from './vader.js';

const vaderText = readVaderLexiconText();
const model = modelLexicon(vaderText);
const vaderOnly = sentimentLexicon('vader', parseVaderLexicon(vaderText));
const label = (text: string) => sentimentLabel(polarityScores(text, model).compound);

describe('the crypto lexicon', () => {
  it('has about 200 entries, each once, on VADER’s scale, every group with a reason', () => {
    const all = CRYPTO_LEXICON.flatMap((g) => Object.entries(g.entries));
    expect(all.length).toBeGreaterThanOrEqual(190);
    expect(new Set(all.map(([k]) => k)).size).toBe(all.length);
    for (const [k, v] of all) {
      expect(k, k).toBe(k.toLowerCase().trim());
      expect(Math.abs(v), k).toBeLessThanOrEqual(4);
    }
    for (const g of CRYPTO_LEXICON) expect(g.reason.length, g.name).toBeGreaterThan(40);
    expect(cryptoValences().size).toBe(all.length);
    expect(model.version).toBe(`vader-3.3.2+crypto-${CRYPTO_LEXICON_VERSION}`);
  });

  it('fixes what VADER alone gets wrong on crypto chat', () => {
    // The example: VADER reads only "lol".
    expect(sentimentLabel(polarityScores('rugged again lol', vaderOnly).compound)).toBe('positive');
    expect(label('rugged again lol')).toBe('negative');
  });

  const cases: [string, 'positive' | 'negative' | 'neutral'][] = [
    ['wagmi', 'positive'],
    ['ngmi', 'negative'],
    ['we got rekt', 'negative'],
    ['it is so over', 'negative'],
    ["we're back 🚀🚀", 'positive'],
    ['to the moon', 'positive'],
    ['not going to the moon anytime soon', 'negative'],
    ['this is a rug pull', 'negative'],
    ['USDC depeg again', 'negative'],
    ['💀💀💀', 'negative'],
    ['📉 all day', 'negative'],
    ['not financial advice', 'neutral'],
    ['what is the interest rate on the pool', 'neutral'],
    ['my tx is in block 123', 'neutral'],
    ['wen token ser', 'neutral'],
    ['gm frens', 'neutral'],
    ['the exploiter drained the pool', 'negative'],
    // A sentence that only asks carries no feeling; "??", "?!" and a separate exclamation keep theirs.
    ['is the yield real or is it a ponzi?', 'neutral'],
    ['is it a ponzi??', 'negative'],
    ['what a scam. who approved this?', 'negative'],
    ['wen moon?!', 'positive'],
    // Percentages after "up" and "down".
    ['ETH down 12% today', 'negative'],
    ['up 30% on the week', 'positive'],
    ['optimism is a chain', 'neutral'],
  ];
  it.each(cases)('%s → %s', (text, expected) => expect(label(text)).toBe(expected));

  it('joins phrases into one token even with punctuation and capitals around them', () => {
    expect(polarityScores('TO THE MOON!!!', model).compound).toBeGreaterThan(
      polarityScores('to the moon', model).compound,
    );
    expect(label('so over.')).toBe('negative');
  });
});
