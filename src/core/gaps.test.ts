import { describe, expect, it } from 'vitest';
import { GAP_REASON_WORDS, nullFieldReasons } from './gaps.js';

describe('gap reasons', () => {
  it('are snake_case words', () => {
    for (const w of GAP_REASON_WORDS) expect(w).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
  it('nullFieldReasons names each listed null field, and only those', () => {
    const r = { a: null, b: 1, c: null, d: null };
    expect(nullFieldReasons(r, ['a', 'b', 'c'], (f) => (f === 'c' ? 'no_price' : 'no_data'))).toEqual({
      a: 'no_data',
      c: 'no_price',
    });
  });
});
