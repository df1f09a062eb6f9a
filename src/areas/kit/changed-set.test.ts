import { describe, expect, it } from 'vitest';
import { type ChangedSetBase, mergeChangedSet, planChangedSet, reconciliationDue } from './changed-set.js';

const DAY = 86_400;
const same = (a: number | undefined, b: number | undefined) => (a ?? 0) === (b ?? 0);
const base: ChangedSetBase<number> = {
  keys: ['a', 'b', 'c', 'z'],
  values: new Map([
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ]),
  reconciledAt: 1000,
};

describe('planChangedSet', () => {
  it.each([
    {
      what: 'no base: every key touched, full',
      base: null,
      touched: ['b', 'a'],
      at: 1000,
      read: ['a', 'b'],
      full: true,
      keys: ['a', 'b'],
      reconciledAt: 1000,
    },
    {
      what: 'a base: only the touched keys',
      base,
      touched: ['c', 'new'],
      at: 1000 + DAY - 1,
      read: ['c', 'new'],
      full: false,
      keys: ['a', 'b', 'c', 'new', 'z'],
      reconciledAt: 1000,
    },
    {
      what: 'nothing touched: nothing read',
      base,
      touched: [],
      at: 2000,
      read: [],
      full: false,
      keys: ['a', 'b', 'c', 'z'],
      reconciledAt: 1000,
    },
    {
      what: 'a day after the last full read: every key',
      base,
      touched: ['c'],
      at: 1000 + DAY,
      read: ['a', 'b', 'c', 'z'],
      full: true,
      keys: ['a', 'b', 'c', 'z'],
      reconciledAt: 1000 + DAY,
    },
    {
      what: 'a day before it (a past day below its base): every key',
      base,
      touched: [],
      at: 1000 - DAY,
      read: ['a', 'b', 'c', 'z'],
      full: true,
      keys: ['a', 'b', 'c', 'z'],
      reconciledAt: 1000 - DAY,
    },
  ])('$what', ({ base: b, touched, at, read, full, keys, reconciledAt }) => {
    expect(planChangedSet(b, touched, at, DAY)).toEqual({ keys, read, full, reconciledAt });
  });

  it('reconciliationDue counts chain time either way', () => {
    expect(reconciliationDue(1000, 1000 + DAY - 1, DAY)).toBe(false);
    expect(reconciliationDue(1000, 1000 + DAY, DAY)).toBe(true);
    expect(reconciliationDue(1000 + DAY, 1000, DAY)).toBe(true);
  });
});

describe('mergeChangedSet', () => {
  it('carries the untouched values from the base and takes the read ones', () => {
    const plan = planChangedSet(base, ['c', 'new'], 2000, DAY);
    const { values, drift } = mergeChangedSet(
      plan,
      base,
      new Map([
        ['c', 0],
        ['new', 7],
      ]),
      ['c', 'new'],
      same,
    );
    expect([...values]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 0],
      ['new', 7],
      ['z', undefined],
    ]);
    expect(drift).toEqual([]);
  });

  it('a full read names the untouched keys whose value moved without an event (drift)', () => {
    const plan = planChangedSet(base, ['c'], 1000 + DAY, DAY);
    const read = new Map<string, number | undefined>([
      ['a', 1],
      ['b', 5],
      ['c', 9],
      ['z', 4],
    ]);
    const { values, drift } = mergeChangedSet(plan, base, read, ['c'], same);
    expect(drift).toEqual(['b', 'z']);
    expect(values.get('b')).toBe(5);
  });

  it('a key to be read that was not is an error, never a carried value', () => {
    const plan = planChangedSet(base, ['c'], 2000, DAY);
    expect(() => mergeChangedSet(plan, base, new Map(), ['c'], same)).toThrow(/c was to be read/);
  });
});
