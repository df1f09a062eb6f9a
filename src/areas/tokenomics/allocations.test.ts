import { describe, expect, it } from 'vitest';
import { registry } from '../../registry/index.js';
import type { TokenDeclaration } from '../../registry/types.js';
import { allocationsOut, declaredAllocations } from './allocations.js';

const E18 = 10n ** 18n;
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
const YEAR = 365 * 86_400;

const declaration = (allocations: TokenDeclaration['allocations']): TokenDeclaration => ({
  sourceKind: 'project',
  source: 'https://example.org/tokenomics',
  allocations,
});

describe('declared allocations', () => {
  it.each([
    ['a cliff', { kind: 'cliff', at: '2024-01-01T00:00:00Z' } as const, [{ kind: 'cliff', at: T0, amount: 10n * E18 }]],
    [
      'a linear unlock with a cliff',
      {
        kind: 'linear',
        start: '2024-01-01T00:00:00Z',
        end: '2025-01-01T00:00:00Z',
        cliff: '2024-07-01T00:00:00Z',
      } as const,
      [{ kind: 'linear', start: T0, end: T0 + 366 * 86_400, cliff: T0 + 182 * 86_400, amount: 10n * E18 }],
    ],
    ['no published schedule', null, []],
  ])('reads %s as the schedule of its whole amount, in raw units', (_, unlock, pieces) => {
    const [a] = declaredAllocations(
      declaration([{ category: 'team', label: 'team', amount: '10', unlock, assumptions: ['a'] }]),
      18,
    );
    expect(a).toEqual({
      category: 'team',
      label: 'team',
      amountRaw: 10n * E18,
      schedule: { pieces },
      sources: [{ kind: 'project', ref: 'https://example.org/tokenomics' }],
      assumptions: ['a'],
    });
  });

  it('reads fractional amounts exactly and no declaration as none', () => {
    const [a] = declaredAllocations(
      declaration([{ category: 'advisors', label: 'a', amount: '0.000001', unlock: null, assumptions: [] }]),
      6,
    );
    expect(a!.amountRaw).toBe(1n);
    expect(declaredAllocations(null, 18)).toEqual([]);
  });

  it.each([
    ['an amount with a sign', { amount: '-1' }],
    ['an amount finer than the token', { amount: '0.0000001' }],
    ['an instant that is not ISO', { unlock: { kind: 'cliff', at: 'yesterday' } as const }],
    [
      'a linear unlock ending before it starts',
      { unlock: { kind: 'linear', start: '2025-01-01T00:00:00Z', end: '2024-01-01T00:00:00Z' } as const },
    ],
  ])('rejects %s with an error naming the allocation', (_, bad) => {
    const spec = { category: 'team' as const, label: 'x', amount: '1', unlock: null, assumptions: [], ...bad };
    expect(() => declaredAllocations(declaration([spec]), 6)).toThrow(/declared allocation team\/x/);
  });

  it('every registry declaration reads', () => {
    for (const p of registry.tokenomicsProtocols()) {
      const all = declaredAllocations(p.tokenomics?.declaration ?? null, p.token!.decimals);
      expect(all.length > 0, p.id).toBe(p.tokenomics?.declaration !== undefined);
    }
  });

  it('an unverified allocation: its unlocked share follows its declared schedule, or is null with a reason without one', () => {
    const declared = declaredAllocations(
      declaration([
        {
          category: 'team',
          label: 'team',
          amount: '40',
          unlock: { kind: 'linear', start: '2024-01-01T00:00:00Z', end: '2028-01-01T00:00:00Z' },
          assumptions: [],
        },
        { category: 'community', label: 'reserve', amount: '60', unlock: null, assumptions: ['no schedule'] },
      ]),
      18,
    );
    const [team, reserve] = allocationsOut(declared, [], 100n * E18, 18, T0 + YEAR);
    expect(team!.verified).toBe(false);
    expect(team!.share).toBe(40);
    expect(team!.unlocked_share).toBeCloseTo((100 * YEAR) / (4 * YEAR + 86_400), 9);
    expect(team!.gap_reasons).toEqual({ onchain: 'no_members' });
    expect(reserve!.unlocked_share).toBeNull();
    expect(reserve!.gap_reasons).toEqual({ unlocked_share: 'no_data', onchain: 'no_members' });
    expect(reserve!.sources).toEqual([{ kind: 'project', ref: 'https://example.org/tokenomics' }]);
  });
});
