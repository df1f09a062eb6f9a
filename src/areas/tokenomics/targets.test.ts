import { describe, expect, it } from 'vitest';
import { addressBookFromRegistry } from '../../registry/address-book.js';
import { registry } from '../../registry/index.js';
import type { PoolFact } from '../dex/public.js';
import type { AreaEnv } from '../kit/module.js';
import { dexPoolLabels, type TokenLabel, type TokenTarget, tokenomicsTargets, withPoolLabels } from './targets.js';

const TOKEN = '0x00000000000000000000000000000000000000aa';
const OTHER = '0x00000000000000000000000000000000000000bb';
const WETH = '0x00000000000000000000000000000000000000cc';
const V2 = '0x00000000000000000000000000000000000000f2';
const V3 = '0x00000000000000000000000000000000000000f3';
const FOREIGN = '0x00000000000000000000000000000000000000f9';

const deployments = [
  { chain: 'ethereum', protocol: 'uniswap', version: 'V2', factory: V2 },
  { chain: 'ethereum', protocol: 'uniswap', version: 'V3', factory: V3 },
] as const;

const pool = (address: string, token0: string, token1: string, factory: string, chain = 'ethereum'): PoolFact => ({
  chain,
  address,
  protocol: 'uniswap',
  version: factory === V3 ? 'V3' : 'V2',
  design: factory === V3 ? 'uniswap-v3' : 'uniswap-v2',
  factory,
  token0,
  token1,
  fee: 3000,
  tickSpacing: factory === V3 ? 60 : null,
  createdBlock: 1,
  createdAt: 1,
});

const target: Pick<TokenTarget, 'chain' | 'address' | 'labels'> = { chain: 'ethereum', address: TOKEN, labels: [] };

describe('DEX pools as dex_pool labels', () => {
  it.each([
    [
      'token0 of a V2 pair',
      pool('0x1000000000000000000000000000000000000001', TOKEN, WETH, V2),
      'uniswap-v2-0x10000000',
    ],
    [
      'token1 of a V3 pool',
      pool('0x2000000000000000000000000000000000000002', WETH, TOKEN, V3),
      'uniswap-v3-0x20000000',
    ],
  ])('labels a pool whose %s is the token, with the deployment it came from', (_, p, label) => {
    const [l] = dexPoolLabels(target, [p], deployments, 'registry');
    expect(l).toEqual({
      address: p.address,
      category: 'dex_pool',
      kind: 'pool',
      label,
      source: `dex:uniswap/${p.version} factory ${p.factory} (address-book:registry)`,
    });
  });

  it.each([
    ['a pair without the token', pool('0x3000000000000000000000000000000000000003', OTHER, WETH, V2)],
    ['a factory the DEX area does not read', pool('0x4000000000000000000000000000000000000004', TOKEN, WETH, FOREIGN)],
    ['a pool on another chain', pool('0x5000000000000000000000000000000000000005', TOKEN, WETH, V2, 'arbitrum')],
  ])('leaves out %s', (_, p) => {
    expect(dexPoolLabels(target, [p], deployments, 'sandbox')).toEqual([]);
  });

  it('keeps the book’s own label of a pool it already labels, and each pool once', () => {
    const address = '0x6000000000000000000000000000000000000006';
    const booked: TokenLabel = {
      address,
      category: 'exchange',
      kind: 'eoa',
      label: 'x',
      source: 'address-book:registry',
    };
    const p = pool(address, TOKEN, WETH, V2);
    expect(dexPoolLabels({ ...target, labels: [booked] }, [p, p], deployments, 'registry')).toEqual([]);
    const q = pool('0x7000000000000000000000000000000000000007', TOKEN, WETH, V2);
    expect(dexPoolLabels(target, [q, q], deployments, 'registry')).toHaveLength(1);
  });

  it('adds pool labels to a target, sorted by address like the book’s', () => {
    const book: TokenLabel = { address: '0x9', category: 'burn', kind: 'burn', label: 'dead', source: 's' };
    const full: TokenTarget = {
      ...target,
      protocol: 'p',
      symbol: 'T',
      decimals: 18,
      startBlock: 0,
      labels: [book],
      declaration: null,
    };
    const pools = dexPoolLabels(
      full,
      [pool('0x1000000000000000000000000000000000000001', TOKEN, WETH, V2)],
      deployments,
      'r',
    );
    expect(withPoolLabels(full, pools).labels.map((l) => l.address)).toEqual([pools[0]!.address, '0x9']);
    expect(withPoolLabels(full, [])).toBe(full);
  });
});

describe('mainnet targets from the registry', () => {
  const env = {
    registry,
    book: addressBookFromRegistry(registry, ['ethereum']),
    sources: { get: () => ({ has: (chain: string) => chain === 'ethereum' }) },
  } as unknown as Pick<AreaEnv, 'registry' | 'book' | 'sources'>;
  const targets = tokenomicsTargets(env);
  const of = (p: string) => targets.find((t) => t.protocol === p)!;

  it.each(['uniswap', 'aave', 'chainlink'])(
    '%s: the L1 escrows of Arbitrum’s and Optimism’s bridges are bridge labels',
    (p) => {
      const bridges = of(p).labels.filter((l) => l.category === 'bridge');
      expect(bridges.map((l) => [l.address, l.label]).sort()).toEqual([
        ['0x99c9fc46f92e8a1c0dec1b1747d010903e884be1', 'optimism-l1-standard-bridge'],
        ['0xa3a7b6f88361f48403514059f1f16c8e78d60eec', 'arbitrum-l1-erc20-gateway'],
      ]);
      expect(bridges.every((l) => l.kind === 'bridge' && l.source === 'address-book:registry')).toBe(true);
      expect(of(p).declaration).toBe(registry.protocol(p)!.tokenomics!.declaration);
    },
  );

  it('AAVE: its deployment block, ecosystem reserve and collector', () => {
    expect(of('aave').startBlock).toBe(10926829);
    expect(
      of('aave')
        .labels.filter((l) => l.category === 'treasury')
        .map((l) => l.label)
        .sort(),
    ).toEqual(['collector', 'ecosystem-reserve']);
  });
});
