import { isAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { parseUnits } from '../core/decimal.js';
import { addressBookFromRegistry, bookEntry, bookKey, bookToken } from './address-book.js';
import { CHAINS } from './chains/index.js';
import { CHANNELS } from './channels/index.js';
import { lower, registry } from './index.js';
import { PROTOCOLS } from './protocols/index.js';
import { REFERENCE_COINS } from './tokens.js';
import type { Address, LendingMarket, ProtocolEntry, TokenRef } from './types.js';

/** The 32 social ids of the legacy `/scores/social/protocols/discord` listing (legacy-api.md §2.10). */
const LEGACY_SOCIAL_IDS = [
  'aave',
  'uniswap',
  'compound',
  'curve',
  'chainlink',
  'near',
  'ethereum',
  'morpho',
  'notional',
  'convex',
  'yearn',
  'bitcoin',
  'idle',
  'harvest',
  'makerdao',
  'frax',
  'liquity',
  'reflexer',
  'balancer',
  'pancakeswap',
  'lido',
  'dydx',
  'gmx',
  'instadapp',
  'chronos',
  'synthetix',
  'swaap',
  'velodrome',
  'maverick',
  'optimism',
  'arbitrum',
  'radiant',
];

const PROTOCOL_ID = /^[a-z0-9]+$/;
const CHAIN_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const VERSION = /^V\d+$/;
const UPPER_SYMBOL = /^[A-Z0-9]+$/;
const PAIR = /^[A-Z0-9]+-[A-Z0-9]+$/;

/**
 * The WETH/ETH rule: a market's base asset is the symbol of one of its assets, except that an `ETH` market's base
 * token is WETH on chain (the legacy API shows Compound's ETH market with the WETH address and symbol `ETH`).
 */
function baseAssetSymbol(asset: TokenRef): string {
  return asset.symbol === 'WETH' ? 'ETH' : asset.symbol.toUpperCase();
}

/** Every TokenRef named anywhere in a protocol entry. */
function tokensOf(p: ProtocolEntry): TokenRef[] {
  const out: TokenRef[] = [];
  if (p.token) out.push(p.token);
  for (const m of p.lending ?? []) out.push(...m.assets);
  if (p.liquidStaking) out.push(p.liquidStaking.token, p.liquidStaking.underlying);
  if (p.stablecoin) out.push(p.stablecoin.token, ...p.stablecoin.collaterals);
  return out;
}

/** Every chain id an entry refers to. */
function chainRefsOf(p: ProtocolEntry): string[] {
  const out = tokensOf(p).map((t) => t.chain);
  for (const d of p.dex ?? []) out.push(d.chain);
  for (const m of p.lending ?? []) out.push(m.chain);
  if (p.liquidStaking) {
    out.push(
      ...p.liquidStaking.lendingExposure.map((e) => e.chain),
      ...p.liquidStaking.dexExposure.map((e) => e.chain),
    );
  }
  // dYdX v4 is read on its own chain (the venue's, named by the protocol), which is no registry chain.
  if (p.derivatives && p.derivatives.venue.design !== 'dydx-v4') out.push(p.derivatives.chain);
  if (p.stablecoin) out.push(...p.stablecoin.chains);
  if (p.security) out.push(...p.security.chains, ...p.security.contracts.map((c) => c.chain));
  for (const f of p.oracle?.feeds ?? []) out.push(f.chain);
  return out;
}

/** Every string that looks like a hex address, anywhere in a value, with the path where it was found. */
function addressesIn(value: unknown, path: string, out: { path: string; address: string }[] = []) {
  if (typeof value === 'string') {
    if (value.startsWith('0x')) out.push({ path, address: value });
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) addressesIn(v, `${path}[${i}]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) addressesIn(v, `${path}.${k}`, out);
  }
  return out;
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

const chainIds = new Set(CHAINS.map((c) => c.id));
const evmChainIds = new Set(CHAINS.filter((c) => c.family === 'evm').map((c) => c.id));
const lendingMarkets: { protocol: string; market: LendingMarket }[] = PROTOCOLS.flatMap((p) =>
  (p.lending ?? []).map((market) => ({ protocol: p.id, market })),
);
const allTokens = PROTOCOLS.flatMap(tokensOf);

describe('registry ids', () => {
  it('protocol ids are unique, canonical and sorted', () => {
    const ids = PROTOCOLS.map((p) => p.id);
    expect(duplicates(ids)).toEqual([]);
    for (const id of ids) expect(id).toMatch(PROTOCOL_ID);
    expect(ids).toEqual([...ids].sort());
  });

  it('chain ids are unique, canonical and sorted', () => {
    const ids = CHAINS.map((c) => c.id);
    expect(duplicates(ids)).toEqual([]);
    for (const id of ids) expect(id).toMatch(CHAIN_ID);
    expect(ids).toEqual([...ids].sort());
  });

  it('no protocol shares an id with a chain', () => {
    expect(PROTOCOLS.filter((p) => chainIds.has(p.id)).map((p) => p.id)).toEqual([]);
  });

  it('channels are discord and reddit', () => {
    expect(CHANNELS.map((c) => c.id)).toEqual(['discord', 'reddit']);
  });

  it('every entry has a display name', () => {
    for (const e of [...PROTOCOLS, ...CHAINS, ...CHANNELS]) expect(e.name.trim()).not.toBe('');
  });
});

describe('social ids', () => {
  it.each(CHANNELS.map((c) => c.id))('are unique and canonical on %s', (channel) => {
    const ids = registry.socialSubjects(channel).map((s) => s.protocolId);
    expect(duplicates(ids)).toEqual([]);
    for (const id of ids) expect(id).toMatch(PROTOCOL_ID);
  });

  it.each(CHANNELS.map((c) => c.id))('cover exactly the 32 legacy ids on %s', (channel) => {
    const ids = registry.socialSubjects(channel).map((s) => s.protocolId);
    expect(LEGACY_SOCIAL_IDS).toHaveLength(32);
    expect([...ids].sort()).toEqual([...LEGACY_SOCIAL_IDS].sort());
  });

  it('every protocol of the legacy list except the chains is a protocol entry, plus spark', () => {
    const chainSocial = new Set(CHAINS.map((c) => c.social?.discord));
    const legacyProtocols = LEGACY_SOCIAL_IDS.filter((id) => !chainSocial.has(id));
    expect(legacyProtocols).toHaveLength(27);
    const social = PROTOCOLS.map((p) => p.social?.discord).filter((id) => id !== undefined);
    expect([...social].sort()).toEqual([...legacyProtocols].sort());
    expect(PROTOCOLS).toHaveLength(28);
    expect(registry.protocol('spark')?.social).toBeUndefined();
  });
});

describe('canonical forms', () => {
  it('versions are V<n>', () => {
    for (const p of PROTOCOLS) {
      const versions = [
        ...(p.dex ?? []).map((d) => d.version),
        ...(p.lending ?? []).map((m) => m.version),
        ...(p.derivatives ? [p.derivatives.version] : []),
        ...(p.liquidStaking?.lendingExposure.map((e) => e.version) ?? []),
        ...(p.liquidStaking?.dexExposure.map((e) => e.version) ?? []),
      ];
      for (const v of versions) expect(v, p.id).toMatch(VERSION);
    }
  });

  it('base assets are uppercase symbols', () => {
    for (const { protocol, market } of lendingMarkets) expect(market.baseAsset, protocol).toMatch(UPPER_SYMBOL);
    for (const p of PROTOCOLS) {
      for (const e of p.liquidStaking?.lendingExposure ?? []) expect(e.baseAsset, p.id).toMatch(UPPER_SYMBOL);
    }
  });

  it('derivatives pairs are unique uppercase BASE-QUOTE', () => {
    for (const p of registry.derivativesProtocols()) {
      const pairs = p.derivatives!.pairs;
      expect(pairs.length, p.id).toBeGreaterThan(0);
      expect(duplicates(pairs), p.id).toEqual([]);
      for (const pair of pairs) expect(pair, p.id).toMatch(PAIR);
    }
  });

  it('oracle feed pairs are unique uppercase BASE-QUOTE', () => {
    for (const p of registry.oracles()) {
      const pairs = p.oracle!.feeds.map((f) => `${f.chain}:${f.pair}`);
      expect(duplicates(pairs), p.id).toEqual([]);
      for (const f of p.oracle!.feeds) expect(f.pair, p.id).toMatch(PAIR);
    }
  });

  it('github refs are org names and owner/name repositories', () => {
    for (const s of registry.developmentSubjects()) {
      expect(s.orgs.length + s.repos.length, s.id).toBeGreaterThan(0);
      for (const org of s.orgs) expect(org, s.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9-]*$/);
      for (const repo of s.repos) expect(repo, s.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9_.-]+$/);
      expect(duplicates([...s.orgs, ...s.repos]), s.id).toEqual([]);
    }
  });
});

describe('addresses', () => {
  const found = [...PROTOCOLS.flatMap((p) => addressesIn(p, p.id)), ...CHAINS.flatMap((c) => addressesIn(c, c.id))];

  it('the registry names addresses', () => {
    expect(found.length).toBeGreaterThan(100);
  });

  it.each(found)('$path is EIP-55 checksummed ($address)', ({ address }) => {
    expect(isAddress(address, { strict: true })).toBe(true);
    expect(address).not.toBe(lower(address));
  });

  it('no two DEX pools share an address on a chain', () => {
    const keys = registry
      .dexDeployments()
      .flatMap(({ deployment }) => deployment.pools.map((pool) => `${deployment.chain}:${lower(pool.address)}`));
    expect(duplicates(keys)).toEqual([]);
  });

  it('no two lending markets share a pool address on a chain', () => {
    const keys = lendingMarkets.map(({ market }) => `${market.chain}:${lower(market.poolAddress)}`);
    expect(duplicates(keys)).toEqual([]);
  });

  it('no two oracle feeds share an address', () => {
    const keys = registry.oracles().flatMap((p) => p.oracle!.feeds.map((f) => `${f.chain}:${lower(f.address)}`));
    expect(duplicates(keys)).toEqual([]);
  });

  it('no protocol lists a security contract twice', () => {
    for (const p of registry.securityProtocols()) {
      const keys = p.security!.contracts.map((c) => `${c.chain}:${lower(c.address)}`);
      expect(duplicates(keys), p.id).toEqual([]);
    }
  });

  it('a token address means one symbol and one decimals value on its chain', () => {
    const byAddress = new Map<string, TokenRef>();
    for (const t of allTokens) {
      const key = `${t.chain}:${lower(t.address)}`;
      const first = byAddress.get(key);
      if (first) expect([t.symbol, t.decimals], key).toEqual([first.symbol, first.decimals]);
      else byAddress.set(key, t);
    }
  });

  it('a token symbol means one address on its chain', () => {
    const bySymbol = new Map<string, Address>();
    for (const t of allTokens) {
      const key = `${t.chain}:${t.symbol}`;
      const first = bySymbol.get(key);
      if (first) expect(lower(t.address), key).toBe(lower(first));
      else bySymbol.set(key, t.address);
    }
  });
});

describe('tokens', () => {
  it('decimals are integers in 0..36', () => {
    for (const t of allTokens) {
      expect(Number.isInteger(t.decimals), t.symbol).toBe(true);
      expect(t.decimals, t.symbol).toBeGreaterThanOrEqual(0);
      expect(t.decimals, t.symbol).toBeLessThanOrEqual(36);
    }
  });

  it('symbols are non-empty and contain no spaces', () => {
    for (const t of allTokens) expect(t.symbol).toMatch(/^[A-Za-z0-9.]+$/);
  });

  it('well-known decimals are right', () => {
    const tokens = new Map(allTokens.map((t) => [`${t.chain}:${t.symbol}`, t.decimals]));
    expect(tokens.get('ethereum:USDC')).toBe(6);
    expect(tokens.get('ethereum:USDT')).toBe(6);
    expect(tokens.get('ethereum:WBTC')).toBe(8);
    expect(tokens.get('ethereum:WETH')).toBe(18);
    expect(tokens.get('ethereum:DAI')).toBe(18);
  });
});

describe('references between entries', () => {
  it.each(PROTOCOLS.map((p) => [p.id, p] as const))('every chain %s refers to exists and is an EVM chain', (_, p) => {
    for (const chain of chainRefsOf(p)) {
      expect(chainIds.has(chain), `${p.id} → ${chain}`).toBe(true);
      expect(evmChainIds.has(chain), `${p.id} → ${chain}`).toBe(true);
    }
  });

  it('an L2 settles on an existing L1; an L1 settles on nothing', () => {
    for (const c of CHAINS) {
      if (c.layer === 'l2') expect(registry.chain(c.settlesOn ?? '')?.layer, c.id).toBe('l1');
      else expect(c.settlesOn, c.id).toBeUndefined();
    }
  });

  it('lending assets live on the market chain and are listed once', () => {
    for (const { protocol, market } of lendingMarkets) {
      for (const a of market.assets) expect(a.chain, `${protocol} ${a.symbol}`).toBe(market.chain);
      expect(duplicates(market.assets.map((a) => lower(a.address))), protocol).toEqual([]);
    }
  });

  it.each(lendingMarkets.map((m) => [`${m.protocol} ${m.market.version} ${m.market.baseAsset}`, m.market] as const))(
    'the base asset of %s is one of its assets (WETH counts as ETH)',
    (_, market) => {
      expect(market.assets.map(baseAssetSymbol)).toContain(market.baseAsset);
    },
  );

  it('lending markets are unique per (chain, protocol, version, base asset)', () => {
    const keys = lendingMarkets.map(
      ({ protocol, market }) => `${market.chain}/${protocol}/${market.version}/${market.baseAsset}`,
    );
    expect(duplicates(keys)).toEqual([]);
  });

  it('DEX deployments are unique per (chain, protocol, version) and pools have two or more tokens', () => {
    const keys = registry
      .dexDeployments()
      .map(({ protocol, deployment }) => `${deployment.chain}/${protocol.id}/${deployment.version}`);
    expect(duplicates(keys)).toEqual([]);
    for (const { protocol, deployment } of registry.dexDeployments()) {
      expect(deployment.exchangeName.trim(), protocol.id).not.toBe('');
      for (const pool of deployment.pools) {
        expect(pool.tokens.length, pool.address).toBeGreaterThanOrEqual(2);
        if (pool.feeTier !== undefined) {
          expect(Number.isInteger(pool.feeTier) && pool.feeTier > 0 && pool.feeTier < 1_000_000).toBe(true);
        }
      }
    }
  });

  it('each lending exposure of liquid staking names an existing lending market', () => {
    const lst = registry.lstLendingMarkets();
    expect(lst.length).toBeGreaterThan(0);
    for (const e of lst) {
      expect(registry.lendingMarket(e.chain, e.protocol, e.version, e.baseAsset), JSON.stringify(e)).toBeDefined();
    }
  });

  it('each DEX exposure pool of liquid staking belongs to an existing DEX deployment', () => {
    const pools = registry.lstDexPools();
    expect(pools.length).toBeGreaterThan(0);
    for (const e of pools) {
      const ref = registry.dexDeployment(e.chain, e.protocol, e.version);
      expect(ref, JSON.stringify(e)).toBeDefined();
      expect(ref!.deployment.pools.map((p) => lower(p.address))).toContain(e.pool);
      expect(registry.dexPool(e.pool)?.deployment).toBe(ref!.deployment);
    }
  });

  it('liquid staking tokens and underlyings share a chain', () => {
    for (const p of registry.liquidStakingProtocols()) {
      expect(p.liquidStaking!.token.chain).toBe(p.liquidStaking!.underlying.chain);
    }
  });

  it('stablecoins are scored on their own chain and collaterals live on a scored chain', () => {
    for (const p of registry.stablecoinProtocols()) {
      const s = p.stablecoin!;
      expect(s.chains, p.id).toContain(s.token.chain);
      expect(s.collaterals.length, p.id).toBeGreaterThan(0);
      for (const c of s.collaterals) expect(s.chains, `${p.id} ${c.symbol}`).toContain(c.chain);
      expect(isAddress(s.entryPoint.address, { strict: true }), p.id).toBe(true);
    }
  });

  it('the registry address book names each stablecoin entry point on mainnet (Chainlog, TroveManager)', () => {
    const book = addressBookFromRegistry(registry, ['ethereum']);
    expect(bookEntry(book, 'ethereum', bookKey.stablecoin('makerdao'))?.address).toBe(
      '0x9ef05f7f6deb616fd37ac3c959a2ddd25a54e4f5',
    );
    expect(bookEntry(book, 'ethereum', bookKey.stablecoin('liquity'))?.address).toBe(
      '0xa39739ef8b0231dbfa0dcda07d7e29faabcf4bb2',
    );
    expect(bookToken(book, 'ethereum', 'LUSD')?.address).toBe('0x5f98805a4e8be255a32880fdec7f6728c6568ba0');
  });

  it('security contracts live on the served chains and every served chain has a contract', () => {
    for (const p of registry.securityProtocols()) {
      const s = p.security!;
      expect(s.contracts.length, p.id).toBeGreaterThan(0);
      for (const c of s.contracts) expect(s.chains, `${p.id} ${c.name}`).toContain(c.chain);
      for (const chain of s.chains)
        expect(
          s.contracts.some((c) => c.chain === chain),
          `${p.id} ${chain}`,
        ).toBe(true);
    }
  });

  it('oracle feeds have a positive heartbeat and a deviation threshold in (0, 100)', () => {
    for (const { feed } of registry.oracles().flatMap((o) => o.oracle!.feeds.map((feed) => ({ feed })))) {
      expect(Number.isInteger(feed.heartbeatSeconds) && feed.heartbeatSeconds > 0, feed.pair).toBe(true);
      expect(feed.deviationThresholdPct > 0 && feed.deviationThresholdPct < 100, feed.pair).toBe(true);
    }
  });
});

describe('chains', () => {
  it('exactly 2 L1 and 2 L2 chains', () => {
    expect(registry.chainsByLayer('l1').map((c) => c.id)).toEqual(['bitcoin', 'ethereum']);
    expect(registry.chainsByLayer('l2').map((c) => c.id)).toEqual(['arbitrum', 'optimism']);
  });

  it('EVM chains carry a unique EIP-155 id, other chains none', () => {
    const evm = CHAINS.filter((c) => c.family === 'evm');
    for (const c of evm) expect(Number.isInteger(c.evmChainId) && c.evmChainId! > 0, c.id).toBe(true);
    expect(duplicates(evm.map((c) => String(c.evmChainId)))).toEqual([]);
    for (const c of CHAINS.filter((c) => c.family !== 'evm')) expect(c.evmChainId, c.id).toBeUndefined();
  });

  it.each(CHAINS.map((c) => [c.id, c] as const))('%s has a positive finality depth and block time', (_, c) => {
    expect(Number.isInteger(c.finalityDepth) && c.finalityDepth > 0).toBe(true);
    expect(c.blockTimeSeconds).toBeGreaterThan(0);
  });

  it("layer 2s take finality from the node's finalized tag (the L1's finality), non-EVM chains from a depth", () => {
    for (const c of CHAINS.filter((c) => c.layer === 'l2')) expect(c.finality, c.id).toBe('tag');
    for (const c of CHAINS.filter((c) => c.family !== 'evm')) expect(c.finality, c.id).toBe('depth');
  });

  it('known EIP-155 ids', () => {
    expect(CHAINS.map((c) => [c.id, c.evmChainId])).toEqual([
      ['arbitrum', 42161],
      ['bitcoin', undefined],
      ['ethereum', 1],
      ['near', undefined],
      ['optimism', 10],
    ]);
  });
});

describe('supported sets', () => {
  it('the legacy available-dexes, plus Uniswap V2', () => {
    const rows = registry
      .dexDeployments()
      .map(({ protocol, deployment: d }) => [d.chain, protocol.id, d.version, d.exchangeName, d.design]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['ethereum', 'curve', 'V3', 'Curve.fi', 'curve'],
        ['ethereum', 'uniswap', 'V3', 'Uniswap', 'uniswap-v3'],
        ['ethereum', 'uniswap', 'V2', 'Uniswap', 'uniswap-v2'],
        ['ethereum', 'swaap', 'V2', 'Swaap', 'swaap-v2'],
        ['ethereum', 'fraxfinance', 'V2', 'Fraxswap', 'uniswap-v2'],
        ['ethereum', 'balancer', 'V2', 'Balancer', 'balancer-v2'],
        ['ethereum', 'pancakeswap', 'V3', 'Pancakeswap', 'uniswap-v3'],
        ['arbitrum', 'gmx', 'V2', 'GMX', 'gmx-v2'],
      ]),
    );
    expect(rows).toHaveLength(8);
  });

  it('the legacy lending markets, with their legacy pool addresses', () => {
    const rows = lendingMarkets.map(({ protocol, market: m }) => [
      m.chain,
      protocol,
      m.version,
      m.baseAsset,
      m.marketName,
      lower(m.poolAddress),
    ]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['ethereum', 'aave', 'V3', 'USDC', 'Ethereum Market', '0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2'],
        ['ethereum', 'compound', 'V3', 'ETH', 'Ethereum ETH Market', '0xa17581a9e3356d9a858b789d68b4d866e593ae94'],
        ['ethereum', 'compound', 'V3', 'USDC', 'Ethereum USDC Market', '0xc3d688b66703497daa19211eedff47f25384cdc3'],
      ]),
    );
  });

  it('exactly 3 derivatives protocols', () => {
    expect(registry.derivativesProtocols().map((p) => p.id)).toEqual(['dydx', 'gmx', 'synthetix']);
  });

  it("derivatives venues are today's: GMX v2 on Arbitrum, dYdX v4 on its own chain, Synthetix's exchange on Ethereum", () => {
    const venues = registry.derivativesProtocols().map((p) => {
      const { chain, version, venue, pairs } = p.derivatives!;
      return [p.id, chain, version, venue.design, pairs.length];
    });
    expect(venues).toEqual([
      ['dydx', 'dydx', 'V4', 'dydx-v4', 19],
      ['gmx', 'arbitrum', 'V2', 'gmx-v2', 15],
      ['synthetix', 'ethereum', 'V4', 'synthetix-exchange', 3],
    ]);
    // dYdX's own chain is named after the protocol and is no registry chain (no protocol shares a chain's id).
    expect(registry.chain('dydx')).toBeUndefined();
  });

  it('dYdX v4 keeps the 19 legacy V3 pairs that are v4 markets and drops the 18 others', () => {
    const legacyV3 = [
      'ALGO-USD',
      'COMP-USD',
      'BCH-USD',
      'YFI-USD',
      'DOT-USD',
      'ICP-USD',
      'ETH-USD',
      'XLM-USD',
      'ADA-USD',
      'CRV-USD',
      'NEAR-USD',
      'ATOM-USD',
      'SOL-USD',
      'LINK-USD',
      'XMR-USD',
      'ZEC-USD',
      'DOGE-USD',
      'LTC-USD',
      'EOS-USD',
      'FIL-USD',
      'ENJ-USD',
      'UNI-USD',
      'AAVE-USD',
      'AVAX-USD',
      'UMA-USD',
      'MATIC-USD',
      'XTZ-USD',
      'SNX-USD',
      'TRX-USD',
      'MKR-USD',
      'RUNE-USD',
      '1INCH-USD',
      'BTC-USD',
      'ZRX-USD',
      'SUSHI-USD',
      'ETC-USD',
      'CELO-USD',
    ];
    const pairs = registry.protocol('dydx')!.derivatives!.pairs;
    expect(legacyV3).toHaveLength(37);
    expect(pairs.filter((x) => !legacyV3.includes(x))).toEqual([]);
    expect(legacyV3.filter((x) => !pairs.includes(x))).toHaveLength(18);
  });

  it('exactly 2 stablecoin protocols', () => {
    expect(registry.stablecoinProtocols().map((p) => p.id)).toEqual(['liquity', 'makerdao']);
  });

  it('exactly 1 oracle', () => {
    expect(registry.oracles().map((p) => p.id)).toEqual(['chainlink']);
  });

  it('exactly 2 channels', () => {
    expect(CHANNELS).toHaveLength(2);
  });

  it('lido is the liquid staking protocol, with the legacy exposures', () => {
    expect(registry.liquidStakingProtocols().map((p) => p.id)).toEqual(['lido']);
    expect(registry.lstLendingMarkets().map(({ lst: _, ...m }) => m)).toEqual([
      { chain: 'ethereum', protocol: 'aave', version: 'V3', baseAsset: 'USDC' },
      { chain: 'ethereum', protocol: 'compound', version: 'V3', baseAsset: 'ETH' },
    ]);
    expect(registry.lstDexPools().map(({ lst: _, ...p }) => p)).toEqual([
      { chain: 'ethereum', protocol: 'curve', version: 'V3', pool: '0xdc24316b9ae028f1497c275eb9192a3ea0f67022' },
    ]);
  });
});

describe('Registry queries', () => {
  it('dexDeployment finds by (chain, protocol, version)', () => {
    const ref = registry.dexDeployment('ethereum', 'uniswap', 'V3');
    expect(ref?.protocol.id).toBe('uniswap');
    expect(ref?.deployment.factory).toBe('0x1F98431c8aD98523631AE4a59f267346ea31F984');
    expect(registry.dexDeployment('ethereum', 'uniswap', 'V2')?.deployment.design).toBe('uniswap-v2');
    expect(registry.dexDeployment('ethereum', 'uniswap', 'V4')).toBeUndefined();
    expect(registry.dexDeployment('arbitrum', 'uniswap', 'V3')).toBeUndefined();
  });

  it('dexPool looks pools up in any case', () => {
    const address = '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640';
    for (const form of [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`]) {
      const hit = registry.dexPool(form);
      expect(hit?.protocol.id, form).toBe('uniswap');
      expect(hit?.deployment.version).toBe('V3');
      expect(hit?.pool.feeTier).toBe(500);
    }
    expect(registry.dexPool('0x0000000000000000000000000000000000000001')).toBeUndefined();
  });

  it('lendingMarket finds by (chain, protocol, version, base asset)', () => {
    const ref = registry.lendingMarket('ethereum', 'compound', 'V3', 'ETH');
    expect(ref?.market.marketName).toBe('Ethereum ETH Market');
    expect(registry.lendingMarket('ethereum', 'aave', 'V3', 'USDC')?.market.design).toBe('aave-v3');
    expect(registry.lendingMarket('ethereum', 'aave', 'V3', 'usdc')).toBeUndefined();
    expect(registry.lendingMarket('ethereum', 'aave', 'V2', 'USDC')).toBeUndefined();
    const weth = registry.lendingAsset(ref!, '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
    expect(weth?.symbol).toBe('WETH');
    expect(registry.lendingAsset(ref!, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBeUndefined();
  });

  it('oracleFeed finds by (oracle, pair)', () => {
    const ref = registry.oracleFeed('chainlink', 'ETH-USD');
    expect(ref?.oracle.id).toBe('chainlink');
    expect(ref?.feed).toMatchObject({ heartbeatSeconds: 3600, deviationThresholdPct: 0.5, chain: 'ethereum' });
    expect(registry.oracleFeed('chainlink', 'eth-usd')).toBeUndefined();
    expect(registry.oracleFeed('aave', 'ETH-USD')).toBeUndefined();
    expect(registry.oracleFeed('nope', 'ETH-USD')).toBeUndefined();
  });

  it('socialSubjects maps social ids to protocols and chains', () => {
    const discord = registry.socialSubjects('discord');
    expect(discord).toContainEqual({
      protocolId: 'frax',
      name: 'Frax Finance',
      kind: 'protocol',
      entityId: 'fraxfinance',
    });
    expect(discord).toContainEqual({
      protocolId: 'radiant',
      name: 'Radiant Capital',
      kind: 'protocol',
      entityId: 'radiantcapital',
    });
    expect(discord.find((s) => s.protocolId === 'near')).toMatchObject({ kind: 'chain', entityId: 'near' });
    expect(registry.socialSubjects('reddit')).toHaveLength(32);
    expect(registry.socialSubjects('telegram')).toEqual([]);
  });

  it('developmentSubjects lists protocols and chains with their GitHub refs', () => {
    const subjects = registry.developmentSubjects();
    const byId = new Map(subjects.map((s) => [`${s.kind}:${s.id}`, s]));
    expect(byId.get('protocol:aave')?.orgs).toEqual(['aave']);
    expect(byId.get('protocol:fraxfinance')?.orgs).toEqual(['FraxFinance']);
    expect(byId.get('protocol:radiantcapital')?.orgs).toEqual(['radiant-capital']);
    expect(byId.get('chain:ethereum')?.repos).toEqual([
      'ethereum/go-ethereum',
      'ethereum/consensus-specs',
      'ethereum/execution-specs',
    ]);
    expect(byId.get('chain:bitcoin')?.repos).toEqual(['bitcoin/bitcoin']);
    expect(duplicates(subjects.map((s) => `${s.kind}:${s.id}`))).toEqual([]);
  });

  it('protocol and chain lookups use canonical ids', () => {
    expect(registry.protocol('fraxfinance')?.name).toBe('Frax Finance');
    expect(registry.protocol('frax')).toBeUndefined();
    expect(registry.protocol('Aave')).toBeUndefined();
    expect(registry.chain('arbitrum')?.settlesOn).toBe('ethereum');
    expect(registry.channel('reddit')?.name).toBe('Reddit');
  });

  it("every tokenomics protocol's token names its CoinGecko coin, and the reference coins are ETH's and BTC's", () => {
    const missing = registry
      .tokenomicsProtocols()
      .filter((p) => !/^[a-z0-9][a-z0-9-]*$/.test(p.token?.coingeckoId ?? ''));
    expect(missing.map((p) => p.id)).toEqual([]);
    const id = (p: string) => registry.protocol(p)?.token?.coingeckoId;
    expect([id('uniswap'), id('aave'), id('chainlink')]).toEqual(['uniswap', 'aave', 'chainlink']);
    expect(REFERENCE_COINS).toEqual({ ETH: 'ethereum', BTC: 'bitcoin' });
  });

  it('tokenomicsProtocols are those with a token', () => {
    const ids = registry.tokenomicsProtocols().map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining(['aave', 'uniswap', 'compound', 'gmx', 'lido', 'makerdao']));
    expect(ids).not.toContain('chronos');
  });
});

describe('tokenomics labels, bridges and declared allocations', () => {
  const DECLARABLE = ['team', 'investors', 'advisors', 'treasury', 'community'];
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
  const instant = (iso: string) => {
    expect(iso).toMatch(ISO);
    const ms = Date.parse(iso);
    expect(Number.isFinite(ms), iso).toBe(true);
    return ms / 1000;
  };

  it('every label has a source and a unique category/kind/label key per protocol', () => {
    for (const p of registry.tokenomicsProtocols()) {
      const labels = p.tokenomics?.labels ?? [];
      for (const l of labels) expect(l.source.trim().length, `${p.id} ${l.label}`).toBeGreaterThan(10);
      expect(duplicates(labels.map((l) => `${l.category}/${l.kind}/${l.label}`)), p.id).toEqual([]);
      expect(duplicates(labels.map((l) => lower(l.address))), p.id).toEqual([]);
    }
  });

  it('every declaration has a URL source, declarable categories, exact amounts and parseable unlocks', () => {
    const declared = registry.tokenomicsProtocols().filter((p) => p.tokenomics?.declaration);
    expect(declared.map((p) => p.id).sort()).toEqual(['aave', 'chainlink', 'uniswap']);
    for (const p of declared) {
      const d = p.tokenomics!.declaration!;
      expect(['project', 'secondary'], p.id).toContain(d.sourceKind);
      expect(d.source, p.id).toMatch(/^https:\/\/\S+/);
      expect(duplicates(d.allocations.map((a) => `${a.category}/${a.label}`)), p.id).toEqual([]);
      for (const a of d.allocations) {
        const what = `${p.id} ${a.label}`;
        expect(DECLARABLE, what).toContain(a.category);
        expect(parseUnits(a.amount, p.token!.decimals), what).toBeDefined();
        if (a.unlock?.kind === 'cliff') instant(a.unlock.at);
        if (a.unlock?.kind === 'linear') {
          expect(instant(a.unlock.end), what).toBeGreaterThan(instant(a.unlock.start));
          if (a.unlock.cliff !== undefined) expect(instant(a.unlock.cliff), what).toBeGreaterThanOrEqual(0);
        }
        // An allocation without a published schedule says so.
        if (a.unlock === null) expect(a.assumptions.length, what).toBeGreaterThan(0);
      }
    }
  });

  it.each([
    ['uniswap', 1_000_000_000n, { community: 17, treasury: 43, team: 21.266, investors: 18.044, advisors: 0.69 }],
    ['aave', 16_000_000n, { community: 81.25, treasury: 18.75 }],
    ['chainlink', 1_000_000_000n, { investors: 35, community: 35, team: 30 }],
  ] as const)('%s declares its whole supply, split as published', (id, supply, split) => {
    const p = registry.protocol(id)!;
    const d = p.tokenomics!.declaration!;
    const raw = (a: string) => parseUnits(a, p.token!.decimals)!;
    const total = d.allocations.reduce((s, a) => s + raw(a.amount), 0n);
    expect(total).toBe(supply * 10n ** BigInt(p.token!.decimals));
    const byCategory: Record<string, number> = {};
    for (const a of d.allocations) {
      byCategory[a.category] = (byCategory[a.category] ?? 0) + Number((raw(a.amount) * 1_000_000n) / total) / 10_000;
    }
    expect(byCategory).toEqual(split);
  });

  it("the L2s' canonical bridge escrows are sourced, and label every L1 token of a tokenomics protocol", () => {
    const l2s = CHAINS.filter((c) => c.l1BridgeEscrows?.length);
    expect(l2s.map((c) => c.id).sort()).toEqual(['arbitrum', 'optimism']);
    for (const c of l2s) {
      expect(c.settlesOn, c.id).toBe('ethereum');
      for (const e of c.l1BridgeEscrows!) expect(e.source, c.id).toMatch(/^https:\/\/\S+/);
    }
    const book = addressBookFromRegistry(registry, ['ethereum']);
    for (const id of ['uniswap', 'aave', 'chainlink']) {
      expect(
        bookEntry(book, 'ethereum', bookKey.tokenomics(id, 'bridge', 'bridge', 'arbitrum-l1-erc20-gateway')),
        id,
      ).toEqual({ address: '0xa3a7b6f88361f48403514059f1f16c8e78d60eec' });
      expect(
        bookEntry(book, 'ethereum', bookKey.tokenomics(id, 'bridge', 'bridge', 'optimism-l1-standard-bridge')),
        id,
      ).toEqual({ address: '0x99c9fc46f92e8a1c0dec1b1747d010903e884be1' });
      expect(book.chains.ethereum?.declarations?.[id], id).toBe(registry.protocol(id)!.tokenomics!.declaration);
    }
    expect(bookEntry(book, 'ethereum', bookKey.tokenomicsToken('aave'))?.startBlock).toBe(10926829);
    expect(bookEntry(book, 'ethereum', bookKey.tokenomicsToken('chainlink'))?.startBlock).toBe(4281611);
  });
});
