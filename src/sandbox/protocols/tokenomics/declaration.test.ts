import { describe, expect, it } from 'vitest';
import type { ManifestTokenomicsToken } from '../../world/manifest.js';
import { sandboxDeclaration } from './protocol.js';

const GENESIS = 1_700_000_000;
const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
const E18 = 10n ** 18n;

const holder = (label: string, category: string, kind: string, amount: bigint, schedule?: object) => ({
  address: '0x00000000000000000000000000000000000000a1' as const,
  category,
  kind,
  label,
  amount: amount.toString(),
  ...(schedule ? { schedule } : {}),
});

const token = {
  symbol: 'UNI',
  protocol: 'uniswap',
  address: '0x00000000000000000000000000000000000000ff',
  standard: 'uni',
  totalSupply: (1000n * E18).toString(),
  issuer: '0x00000000000000000000000000000000000000ee',
  holders: [
    holder('team-1', 'team', 'treasury_vester', 200n * E18, {
      start: GENESIS,
      cliff: GENESIS + 3600,
      end: GENESIS + 7200,
    }),
    holder('investors-1', 'investors', 'vesting_wallet', 150n * E18, {
      start: GENESIS,
      cliff: GENESIS,
      end: GENESIS + 100,
    }),
    holder('team-2', 'team', 'token_timelock', 50n * E18 + 1n, {
      start: GENESIS + 60,
      cliff: GENESIS + 60,
      end: GENESIS + 60,
    }),
    holder('timelock', 'treasury', 'timelock', 400n * E18),
    holder('airdrop', 'community', 'merkle_distributor', 100n * E18),
    holder('sandbox_binance-hot-1', 'exchange', 'eoa', 100n * E18),
  ],
} as unknown as ManifestTokenomicsToken;

describe("the sandbox world's declared allocation", () => {
  it('declares each labelled holder of a declared category with the schedule it was deployed with', () => {
    const d = sandboxDeclaration(token, GENESIS);
    expect(d.sourceKind).toBe('sandbox');
    expect(d.allocations).toEqual([
      {
        category: 'team',
        label: 'team-1',
        amount: '200',
        unlock: { kind: 'linear', start: iso(GENESIS), end: iso(GENESIS + 7200), cliff: iso(GENESIS + 3600) },
        assumptions: [],
      },
      {
        category: 'investors',
        label: 'investors-1',
        amount: '150',
        unlock: { kind: 'linear', start: iso(GENESIS), end: iso(GENESIS + 100) },
        assumptions: [],
      },
      {
        category: 'team',
        label: 'team-2',
        amount: '50.000000000000000001',
        unlock: { kind: 'cliff', at: iso(GENESIS + 60) },
        assumptions: [],
      },
      {
        category: 'treasury',
        label: 'timelock',
        amount: '400',
        unlock: { kind: 'cliff', at: iso(GENESIS) },
        assumptions: [],
      },
      {
        category: 'community',
        label: 'airdrop',
        amount: '100',
        unlock: { kind: 'cliff', at: iso(GENESIS) },
        assumptions: [],
      },
    ]);
  });
});
