import { describe, expect, it } from 'vitest';
import {
  PHRASE_CATEGORIES,
  PHRASE_KINDS,
  PHRASE_SENTIMENTS,
  PHRASES,
  type Phrase,
  type PhraseKind,
  renderPhrase,
} from './phrases.js';

const SLOTS = { protocol: 'Aave', token: 'AAVE', user: 'degen_42', number: '17' };
const share = (keep: (p: Phrase) => boolean) => PHRASES.filter(keep).length / PHRASES.length;

describe('phrase bank', () => {
  it('holds about 400 phrases with known labels and kinds', () => {
    expect(PHRASES.length).toBeGreaterThanOrEqual(380);
    for (const p of PHRASES) {
      expect(PHRASE_SENTIMENTS).toContain(p.sentiment);
      expect(PHRASE_CATEGORIES).toContain(p.category);
      expect(PHRASE_KINDS).toContain(p.kind);
    }
  });

  it('mixes sentiments as real chat does (about a third each, neutral a little ahead)', () => {
    for (const s of PHRASE_SENTIMENTS) {
      const f = share((p) => p.sentiment === s);
      expect(f, s).toBeGreaterThan(0.25);
      expect(f, s).toBeLessThan(0.42);
    }
  });

  it('covers every category with each sentiment, and no category dominates', () => {
    for (const c of PHRASE_CATEGORIES) {
      const inCategory = PHRASES.filter((p) => p.category === c);
      expect(inCategory.length, c).toBeGreaterThanOrEqual(25);
      expect(inCategory.length / PHRASES.length, c).toBeLessThan(0.2);
      for (const s of PHRASE_SENTIMENTS)
        expect(
          inCategory.some((p) => p.sentiment === s),
          `${c} ${s}`,
        ).toBe(true);
    }
  });

  it('has every kind, ordinary chat and questions first, and the kinds the spam rules look for', () => {
    const count = (k: PhraseKind) => PHRASES.filter((p) => p.kind === k).length;
    expect(share((p) => p.kind === 'chat')).toBeGreaterThan(0.6);
    expect(share((p) => p.kind === 'question')).toBeGreaterThan(0.12);
    for (const k of ['scam', 'spam', 'announcement'] as const) expect(count(k), k).toBeGreaterThanOrEqual(8);
    // Scam offers carry an invite link or ask for a direct message, the marks the counting rules name.
    for (const p of PHRASES.filter((q) => q.kind === 'scam')) {
      expect(/discord\.gg\/|\bdm\b|reconnect your wallet/i.test(p.text), p.text).toBe(true);
    }
    for (const p of PHRASES.filter((q) => q.kind === 'question')) expect(p.text, p.text).toContain('?');
  });

  it('includes the exploit-day talk: scam warnings and hack panic, mostly negative', () => {
    const security = PHRASES.filter((p) => p.category === 'Scams and Security' && p.kind === 'chat');
    expect(security.length).toBeGreaterThanOrEqual(30);
    expect(security.filter((p) => p.sentiment === 'negative').length / security.length).toBeGreaterThan(0.5);
  });

  it('has no duplicates (ignoring case), no tabs, newlines or stray spaces', () => {
    const seen = new Set<string>();
    for (const p of PHRASES) {
      const key = p.text.toLowerCase();
      expect(seen.has(key), p.text).toBe(false);
      seen.add(key);
      expect(p.text, p.text).not.toMatch(/[\t\r\n]/);
      expect(p.text, p.text).toBe(p.text.trim());
      expect(p.text, p.text).not.toMatch(/ {2}/);
    }
  });

  it('renders every slot and leaves no braces behind', () => {
    for (const p of PHRASES) {
      const text = renderPhrase(p, SLOTS);
      expect(text, p.text).not.toMatch(/[{}]/);
    }
    const withAll = PHRASES.filter((p) => /\{protocol\}/.test(p.text));
    expect(withAll.length).toBeGreaterThan(10);
    for (const slot of ['token', 'user', 'number'] as const) {
      expect(
        PHRASES.some((p) => p.text.includes(`{${slot}}`)),
        slot,
      ).toBe(true);
    }
    const spam = PHRASES.find((p) => p.text === '{token} TO $100 🚀🚀 {token} TO $100 🚀🚀')!;
    expect(renderPhrase(spam, SLOTS)).toBe('AAVE TO $100 🚀🚀 AAVE TO $100 🚀🚀');
    const user = PHRASES.find((p) => p.text === 'thx {user}, that fixed it!')!;
    expect(renderPhrase(user, { ...SLOTS, user: 'x$&y' })).toBe('thx x$&y, that fixed it!');
  });

  it('renders deterministically: the same slots give the same text, other slots another', () => {
    const p = PHRASES.find((q) => q.text.includes('{protocol}') && q.text.includes('{number}'))!;
    expect(renderPhrase(p, SLOTS)).toBe(renderPhrase(p, { ...SLOTS }));
    expect(renderPhrase(p, SLOTS)).not.toBe(renderPhrase(p, { ...SLOTS, protocol: 'Lido', number: '3' }));
  });

  it('labels the hard cases as a careful reader would (sarcasm, negation, slang)', () => {
    const label = (text: string) => PHRASES.find((p) => p.text === text)?.sentiment;
    expect(label('great, another hack. love this for us')).toBe('negative');
    expect(label('{token} staking apy is {number}% rn, not bad at all')).toBe('positive');
    expect(label('another leg down, fantastic. just fantastic')).toBe('negative');
    expect(label('down bad but still believing')).toBe('positive');
    expect(label('wen moon ser?')).toBe('neutral');
    expect(label('rugged again. every single time 💀')).toBe('negative');
  });
});
