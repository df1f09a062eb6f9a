/**
 * The topic taxonomy: mid-level topics under the legacy API's 9 high-level categories, each with weighted keywords
 * and phrases, and the classifier that picks a message's topic. Pure.
 *
 * Classification: the message is lower-cased and split into words (letters, digits, apostrophes, `$`); each
 * keyword found adds its weight to its topic (a keyword counts once per message), phrases are matched on
 * consecutive words and their words then count no more as single keywords. The topic with the largest total wins;
 * ties go to the topic listed first (the order below puts the topics whose misreading costs most first: scams
 * and hacks before everything else). A message with no keyword is `Other`.
 *
 * Weights: 2 for a phrase or a word that names its topic unambiguously ("phishing", "quorum", "health factor"),
 * 1 for a word typical of the topic, 0.5 for a word that leans towards it but appears elsewhere ("price", "token").
 *
 * Versioned (`TAXONOMY_VERSION`): a change of topics, keywords or weights changes published topic figures.
 */

export const TAXONOMY_VERSION = '1.0.0';

export const HIGH_LEVEL_CATEGORIES = [
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

export type HighLevelCategory = (typeof HIGH_LEVEL_CATEGORIES)[number];

export interface MidLevelTopic {
  readonly name: string;
  readonly high: HighLevelCategory;
  /** Keyword or phrase (single spaces) → weight. */
  readonly keywords: Readonly<Record<string, number>>;
}

/** The topic of a message with no keyword, and its category. */
export const OTHER_TOPIC = 'Other';

export const TAXONOMY: readonly MidLevelTopic[] = [
  {
    name: 'Scam and Phishing Warnings',
    high: 'Scams and Security',
    keywords: {
      scam: 2,
      scams: 2,
      scammer: 2,
      scammers: 2,
      scammed: 2,
      phishing: 2,
      phish: 2,
      impersonator: 2,
      impersonating: 2,
      impersonate: 2,
      fake: 1.5,
      drainer: 2,
      honeypot: 2,
      ponzi: 2,
      rug: 2,
      rugged: 2,
      rugpull: 2,
      'rug pull': 2,
      'rug pulled': 2,
      'exit scam': 2,
      'seed phrase': 2,
      'recovery phrase': 2,
      'private key': 2,
      'private keys': 2,
      'never dm': 2,
      "don't click": 2,
      'do not click': 2,
      'fake admin': 2,
      'be careful': 1.5,
      'stay safe': 1.5,
      suspicious: 1.5,
      malicious: 2,
      'wallet connect': 0.5,
      revoke: 1.5,
      'revoke approvals': 2,
      'pump and dump': 2,
      spam: 1,
      spammers: 1.5,
      bots: 0.5,
      warning: 1,
      beware: 2,
    },
  },
  {
    name: 'Hacks and Exploits',
    high: 'Scams and Security',
    keywords: {
      hack: 2,
      hacked: 2,
      hacker: 2,
      hackers: 2,
      exploit: 2,
      exploited: 2,
      exploiter: 2,
      attacker: 2,
      attack: 1.5,
      drained: 2,
      stolen: 2,
      vulnerability: 2,
      vuln: 2,
      reentrancy: 2,
      'flash loan attack': 2,
      'bug bounty': 2,
      'post mortem': 2,
      postmortem: 2,
      'post-mortem': 2,
      'security incident': 2,
      incident: 1.5,
      security: 1.5,
      secure: 1,
      audit: 1.5,
      audits: 1.5,
      audited: 1.5,
      auditor: 1.5,
      compromised: 2,
      breach: 2,
      'emergency pause': 2,
      whitehat: 2,
      blackhat: 2,
      'funds safe': 1.5,
      'funds are safe': 1.5,
      safu: 1.5,
    },
  },
  {
    name: 'Proposals and Voting',
    high: 'Governance and Voting',
    keywords: {
      proposal: 2,
      proposals: 2,
      vote: 2,
      votes: 2,
      voting: 2,
      voted: 2,
      voter: 2,
      voters: 2,
      quorum: 2,
      governance: 2,
      gov: 1.5,
      delegate: 2,
      delegates: 2,
      delegated: 2,
      delegation: 2,
      snapshot: 1,
      'temp check': 2,
      aip: 2,
      bip: 1.5,
      cip: 1.5,
      veto: 2,
      ballot: 2,
      dao: 1.5,
      forum: 1,
      'forum post': 1.5,
      onchain: 0.5,
      'voting power': 2,
    },
  },
  {
    name: 'Treasury and Protocol Parameters',
    high: 'Governance and Voting',
    keywords: {
      treasury: 2,
      'risk parameters': 2,
      'parameter change': 2,
      parameters: 1,
      'fee switch': 2,
      grant: 1.5,
      grants: 1.5,
      budget: 1.5,
      council: 1.5,
      multisig: 1.5,
      timelock: 1.5,
      'risk council': 2,
      steward: 1.5,
      stewards: 1.5,
      'debt ceiling': 2,
      'supply cap': 1.5,
      'borrow cap': 1.5,
    },
  },
  {
    name: 'APR and Projected APY Discussion',
    high: 'DeFi and Yield Farming',
    keywords: {
      apr: 2,
      apy: 2,
      yield: 1.5,
      yields: 1.5,
      farm: 1.5,
      farming: 2,
      farms: 1.5,
      emissions: 1.5,
      incentives: 1.5,
      gauge: 2,
      gauges: 2,
      bribe: 2,
      bribes: 2,
      boost: 1,
      compounding: 1.5,
      autocompound: 2,
      'real yield': 2,
      rewards: 1,
      reward: 1,
      'liquidity mining': 2,
      harvest: 1,
    },
  },
  {
    name: 'Liquidity Pools and Staking',
    high: 'DeFi and Yield Farming',
    keywords: {
      liquidity: 1.5,
      pool: 1.5,
      pools: 1.5,
      lp: 2,
      lps: 2,
      'lp tokens': 2,
      stake: 1.5,
      staking: 1.5,
      staked: 1.5,
      unstake: 1.5,
      unstaking: 1.5,
      restaking: 2,
      vault: 1.5,
      vaults: 1.5,
      deposit: 1,
      deposited: 1,
      deposits: 1,
      withdraw: 0.5,
      'impermanent loss': 2,
      tvl: 0.5,
      'liquidity provider': 2,
      'concentrated liquidity': 2,
      validator: 0.5,
    },
  },
  {
    name: 'Collateral Borrowing and Liquidation',
    high: 'DeFi and Yield Farming',
    keywords: {
      borrow: 2,
      borrowed: 2,
      borrowing: 2,
      borrowers: 2,
      collateral: 2,
      liquidation: 2,
      liquidations: 2,
      liquidated: 2,
      'health factor': 2,
      lend: 1.5,
      lending: 1.5,
      lender: 1.5,
      lenders: 1.5,
      loan: 1.5,
      loans: 1.5,
      'flash loan': 1.5,
      debt: 1.5,
      repay: 2,
      repaid: 2,
      ltv: 2,
      cdp: 2,
      'interest rate': 1.5,
      'interest rates': 1.5,
      'borrow rate': 2,
      'supply rate': 2,
      utilization: 1.5,
      peg: 1,
      depeg: 1.5,
    },
  },
  {
    name: 'Transaction and Wallet Issues',
    high: 'Technical Discussions and Support',
    keywords: {
      transaction: 1.5,
      transactions: 1.5,
      tx: 1.5,
      txn: 1.5,
      txs: 1.5,
      failed: 1,
      fails: 1,
      failing: 1,
      pending: 1.5,
      stuck: 1.5,
      metamask: 2,
      ledger: 1.5,
      wallet: 1,
      approve: 1,
      approval: 1,
      nonce: 2,
      revert: 2,
      reverted: 2,
      reverts: 2,
      error: 1.5,
      errors: 1.5,
      rpc: 2,
      'not showing': 2,
      "doesn't show": 2,
      'not working': 1.5,
      "isn't working": 1.5,
      "doesn't work": 1.5,
      'gas limit': 2,
      'out of gas': 2,
      signature: 1,
      'connect wallet': 1.5,
      bridge: 1,
      bridged: 1,
      bridging: 1,
      withdrawal: 1,
      withdrawals: 1,
      balance: 0.5,
      ui: 1,
      frontend: 1.5,
      'front end': 1.5,
      site: 0.5,
      website: 1,
      app: 0.5,
      loading: 1.5,
      refresh: 1,
      glitch: 1.5,
      bug: 1,
    },
  },
  {
    name: 'Opening Support Tickets',
    high: 'Technical Discussions and Support',
    keywords: {
      ticket: 2,
      tickets: 2,
      support: 1,
      'support team': 2,
      'open a ticket': 2,
      'support channel': 2,
      helpdesk: 2,
      help: 1,
      'need help': 1.5,
      'anyone help': 1.5,
      'can someone': 1,
      'how do i': 1.5,
      'how to': 1,
      'how can i': 1.5,
      'is there a way': 1,
      mods: 1,
      mod: 1,
      moderator: 1,
      admin: 0.5,
      guide: 1,
      tutorial: 1.5,
      docs: 1,
      documentation: 1.5,
      faq: 1.5,
      issue: 1,
      problem: 1,
    },
  },
  {
    name: 'Development and Upgrades',
    high: 'Technical Discussions and Support',
    keywords: {
      contract: 1.5,
      contracts: 1.5,
      'smart contract': 2,
      'smart contracts': 2,
      upgrade: 1.5,
      upgraded: 1.5,
      upgrades: 1.5,
      deploy: 2,
      deployed: 2,
      deployment: 2,
      testnet: 2,
      mainnet: 1.5,
      github: 2,
      sdk: 2,
      api: 1.5,
      code: 1.5,
      codebase: 2,
      devs: 1,
      developer: 1.5,
      developers: 1.5,
      dev: 1,
      release: 1,
      integration: 1.5,
      node: 1.5,
      nodes: 1.5,
      subgraph: 2,
      solidity: 2,
      'pull request': 2,
      repo: 1.5,
      v2: 0.5,
      v3: 0.5,
      v4: 0.5,
      migration: 1.5,
      migrate: 1.5,
      oracle: 1.5,
      oracles: 1.5,
      rollup: 1.5,
      l2: 1,
      sequencer: 2,
      fix: 1,
      fixed: 1,
      patch: 1.5,
      feature: 1,
      features: 1,
    },
  },
  {
    name: 'Price Movements and Predictions',
    high: 'Price and Market Discussions',
    keywords: {
      price: 1.5,
      prices: 1.5,
      moon: 1.5,
      mooning: 2,
      'to the moon': 2,
      pump: 1.5,
      pumping: 1.5,
      pumped: 1.5,
      dump: 1.5,
      dumping: 1.5,
      dumped: 1.5,
      ath: 2,
      'all time high': 2,
      'new ath': 2,
      bullish: 1.5,
      bearish: 1.5,
      chart: 1.5,
      charts: 1.5,
      'price target': 2,
      crash: 1.5,
      crashing: 1.5,
      crashed: 1.5,
      dip: 1.5,
      dips: 1.5,
      'buy the dip': 2,
      rally: 1.5,
      breakout: 1.5,
      resistance: 1.5,
      candle: 1.5,
      candles: 1.5,
      'market cap': 1.5,
      mcap: 1.5,
      'going up': 1.5,
      'going down': 1.5,
      bottom: 1,
      tanking: 1.5,
      bleeding: 1,
      'red candles': 2,
      'green candles': 2,
      $: 0.5,
      x10: 1.5,
      '10x': 1.5,
      '100x': 1.5,
      undervalued: 1.5,
      overvalued: 1.5,
      valuation: 1,
    },
  },
  {
    name: 'Market Sentiment and Cycles',
    high: 'Price and Market Discussions',
    keywords: {
      market: 1,
      markets: 1,
      'bull run': 2,
      'bull market': 2,
      'bear market': 2,
      bullrun: 2,
      macro: 2,
      fed: 1.5,
      etf: 1.5,
      cycle: 1,
      recession: 1.5,
      'so over': 1.5,
      "we're back": 1.5,
      'so back': 1.5,
      fud: 1.5,
      fomo: 1.5,
      capitulation: 2,
      'altcoin season': 2,
      altseason: 2,
      btc: 0.5,
      bitcoin: 0.5,
      'risk off': 1.5,
      'risk on': 1.5,
    },
  },
  {
    name: 'Metrics and Dashboards',
    high: 'Data and Analytics',
    keywords: {
      tvl: 1.5,
      dashboard: 2,
      dashboards: 2,
      dune: 2,
      analytics: 2,
      data: 1.5,
      metrics: 2,
      metric: 2,
      stats: 2,
      statistics: 2,
      volume: 1.5,
      'daily active': 2,
      dau: 2,
      users: 0.5,
      report: 1.5,
      reports: 1.5,
      defillama: 2,
      'on-chain data': 2,
      numbers: 1,
      growth: 1,
      'market share': 2,
      graph: 1.5,
      query: 1.5,
      spreadsheet: 2,
      research: 1.5,
      analysis: 1.5,
      utilisation: 1,
      'open interest': 2,
      percent: 0.5,
      '%': 0.5,
    },
  },
  {
    name: 'Revenue and Fees',
    high: 'Data and Analytics',
    keywords: {
      revenue: 2,
      revenues: 2,
      'protocol revenue': 2,
      'fee revenue': 2,
      earnings: 1.5,
      'p/e': 2,
      buyback: 1.5,
      buybacks: 1.5,
      'fees generated': 2,
      fees: 0.5,
      profit: 1,
      profitable: 1,
    },
  },
  {
    name: 'Trading and Exchanges',
    high: 'Trading and Tokens',
    keywords: {
      trade: 1.5,
      trades: 1.5,
      trading: 1.5,
      trader: 1.5,
      traders: 1.5,
      swap: 1.5,
      swapped: 1.5,
      swapping: 1.5,
      swaps: 1.5,
      buy: 1,
      buying: 1,
      bought: 1,
      sell: 1,
      selling: 1,
      sold: 1,
      exchange: 1.5,
      exchanges: 1.5,
      cex: 2,
      dex: 1.5,
      binance: 2,
      coinbase: 2,
      kraken: 2,
      listing: 1.5,
      listed: 1.5,
      delisted: 2,
      leverage: 1.5,
      long: 1,
      longs: 1.5,
      short: 1,
      shorts: 1.5,
      shorting: 1.5,
      perp: 2,
      perps: 2,
      futures: 2,
      slippage: 2,
      'limit order': 2,
      'order book': 2,
      orderbook: 2,
      entry: 1,
      'take profit': 2,
      'stop loss': 2,
      position: 1,
      positions: 1,
      aped: 1.5,
      'ape in': 1.5,
      'aped in': 1.5,
      bags: 1,
      arbitrage: 2,
      arb: 0.5,
    },
  },
  {
    name: 'Tokenomics and Supply',
    high: 'Trading and Tokens',
    keywords: {
      tokenomics: 2,
      supply: 1.5,
      'circulating supply': 2,
      'total supply': 2,
      unlock: 2,
      unlocks: 2,
      vesting: 2,
      vested: 2,
      emission: 1.5,
      inflation: 1.5,
      inflationary: 2,
      deflationary: 2,
      burn: 1.5,
      burned: 1.5,
      burns: 1.5,
      airdrop: 2,
      airdrops: 2,
      token: 1,
      tokens: 1,
      tge: 2,
      allocation: 1.5,
      'token launch': 2,
      mint: 1,
      minted: 1,
      minting: 1,
      holders: 1,
      holder: 1,
      whale: 1,
      whales: 1,
      claim: 1,
      claimed: 1,
      claiming: 1,
      eligible: 1.5,
      eligibility: 1.5,
      ve: 1,
      locked: 1,
      lock: 0.5,
    },
  },
  {
    name: 'Appreciation for Help and Guidance',
    high: 'Community and Communication',
    keywords: {
      thanks: 2,
      thank: 2,
      'thank you': 2,
      thx: 2,
      ty: 2,
      tysm: 2,
      appreciate: 2,
      appreciated: 2,
      grateful: 2,
      'shout out': 2,
      shoutout: 2,
      kudos: 2,
      'great team': 2,
      'great work': 1.5,
      'well done': 1.5,
      'good job': 1.5,
      helpful: 1.5,
      'love this': 1,
      legend: 1.5,
      legends: 1.5,
    },
  },
  {
    name: 'Announcements and Events',
    high: 'Community and Communication',
    keywords: {
      announcement: 2,
      announcements: 2,
      announce: 2,
      announced: 2,
      ama: 2,
      event: 1.5,
      events: 1.5,
      'community call': 2,
      call: 0.5,
      twitter: 1.5,
      tweet: 1.5,
      blog: 1.5,
      newsletter: 2,
      partnership: 2,
      partnerships: 2,
      partner: 1,
      'stay tuned': 2,
      livestream: 2,
      spaces: 1,
      hackathon: 2,
      conference: 2,
      meetup: 2,
      roadmap: 1.5,
      update: 1,
      updates: 1,
      launch: 1,
      launched: 1,
      launching: 1,
      live: 0.5,
      recap: 2,
    },
  },
  {
    name: 'Greetings and Community Chat',
    high: 'Community and Communication',
    keywords: {
      gm: 2,
      gn: 2,
      hello: 2,
      hi: 2,
      hey: 1.5,
      welcome: 2,
      'good morning': 2,
      'good night': 2,
      frens: 1.5,
      fren: 1.5,
      fam: 1.5,
      community: 1.5,
      everyone: 0.5,
      wagmi: 1.5,
      lfg: 1,
      meme: 1.5,
      memes: 1.5,
      vibes: 1.5,
      discord: 1,
      channel: 0.5,
      chat: 1,
      server: 0.5,
      mods: 0.5,
      joined: 1,
      'new here': 2,
      newbie: 1.5,
      ser: 0.5,
      wen: 0.5,
      moderators: 0.5,
    },
  },
];

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
const WORD = /[\p{L}\p{N}'$%/-]+/gu;

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
    if (w.endsWith('%') && w.length > 1) {
      out.push(w.slice(0, -1), '%');
      continue;
    }
    if (w) out.push(w);
  }
  return out;
}

export interface TopicResult {
  readonly mid: string;
  readonly high: HighLevelCategory;
  /** The winning topic's total weight (0 for `Other`). */
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
  let best = -1;
  let bestWeight = 0;
  totals.forEach((t, i) => {
    if (t > bestWeight) {
      best = i;
      bestWeight = t;
    }
  });
  if (best < 0) return { mid: OTHER_TOPIC, high: 'Other', weight: 0 };
  const topic = TAXONOMY[best]!;
  return { mid: topic.name, high: topic.high, weight: bestWeight };
}
