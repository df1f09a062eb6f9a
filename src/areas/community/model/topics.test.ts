import { describe, expect, it } from 'vitest';
import { classifyTopic, HIGH_LEVEL_CATEGORIES, TAXONOMY, topicWords } from './topics.js';

describe('the topic taxonomy', () => {
  it('has about 20 mid-level topics under the 8 legacy categories (Other being the rest), each named once', () => {
    expect(TAXONOMY.length).toBeGreaterThanOrEqual(18);
    expect(TAXONOMY.length).toBeLessThanOrEqual(24);
    expect(new Set(TAXONOMY.map((t) => t.name)).size).toBe(TAXONOMY.length);
    const used = new Set(TAXONOMY.map((t) => t.high));
    expect([...used].sort()).toEqual(HIGH_LEVEL_CATEGORIES.filter((c) => c !== 'Other').sort());
    for (const t of TAXONOMY) {
      for (const [k, w] of Object.entries(t.keywords)) {
        expect(k, `${t.name}: ${k}`).toBe(k.toLowerCase());
        expect([0.5, 1, 1.5, 2, 3], `${t.name}: ${k}`).toContain(w);
      }
    }
  });

  const cases: [string, string, string][] = [
    ['careful, a fake admin is sending phishing links', 'Scam and Phishing Warnings', 'Scams and Security'],
    ['the bridge was exploited, attacker drained 2M', 'Hacks and Exploits', 'Scams and Security'],
    ['vote on the proposal before quorum', 'Proposals and Voting', 'Governance and Voting'],
    ['the treasury multisig signed the grant', 'Treasury and Protocol Parameters', 'Governance and Voting'],
    ['APY on the farm dropped to 4%', 'APR and Projected APY Discussion', 'DeFi and Yield Farming'],
    ['added liquidity to the pool and staked my LP tokens', 'Liquidity Pools and Staking', 'DeFi and Yield Farming'],
    ['my health factor is low, close to liquidation', 'Collateral Borrowing and Liquidation', 'DeFi and Yield Farming'],
    ['tx stuck pending in metamask', 'Transaction and Wallet Issues', 'Technical Discussions and Support'],
    ['please open a ticket in the support channel', 'Opening Support Tickets', 'Technical Discussions and Support'],
    ['the v3 contracts are deployed on testnet', 'Development and Upgrades', 'Technical Discussions and Support'],
    ['price target 10 dollars, chart looks bullish', 'Price Movements and Predictions', 'Price and Market Discussions'],
    ['bear market vibes, macro is awful', 'Market Sentiment and Cycles', 'Price and Market Discussions'],
    ['dune dashboard shows TVL and volume', 'Metrics and Dashboards', 'Data and Analytics'],
    ['protocol revenue doubled this month', 'Revenue and Fees', 'Data and Analytics'],
    ['just swapped on binance, slippage was bad', 'Trading and Exchanges', 'Trading and Tokens'],
    ['token unlock and vesting schedule', 'Tokenomics and Supply', 'Trading and Tokens'],
    ['thank you so much, really appreciate it', 'Appreciation for Help and Guidance', 'Community and Communication'],
    ['AMA tomorrow, stay tuned for the announcement', 'Announcements and Events', 'Community and Communication'],
    ['gm everyone', 'Greetings and Community Chat', 'Community and Communication'],
    ['what did you have for lunch', 'Other', 'Other'],
    ['', 'Other', 'Other'],
  ];
  it.each(cases)('%s → %s', (text, mid, high) => {
    expect(classifyTopic(text)).toMatchObject({ mid, high });
  });

  it('counts a keyword once and a phrase instead of its words', () => {
    expect(classifyTopic('vote vote vote vote').weight).toBe(2);
    // "rug pull" is one phrase (2), not "rug" (2) plus nothing.
    expect(classifyTopic('rug pull').weight).toBe(2);
  });
  it('breaks ties by the taxonomy order', () => {
    // "scam" (2) and "vote" (2): scams are listed first.
    expect(classifyTopic('scam vote').mid).toBe('Scam and Phishing Warnings');
  });
  it('splits words, $tickers and percentages', () => {
    expect(topicWords("$ETH up 5%, isn't it 'gm'")).toEqual(['$', 'eth', 'up', '<num>', '%', "isn't", 'it', 'gm']);
  });
});
