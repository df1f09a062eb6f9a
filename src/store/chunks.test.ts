import { describe, expect, it } from 'vitest';
import { inChunks } from './chunks.js';

describe('inChunks', () => {
  it('writes every row once, in order, in slices of the size', async () => {
    const seen: number[][] = [];
    await inChunks([1, 2, 3, 4, 5], async (c) => seen.push(c), 2);
    expect(seen).toEqual([[1, 2], [3, 4], [5]]);
    const none: number[][] = [];
    await inChunks([], async (c: number[]) => none.push(c));
    expect(none).toEqual([]);
  });

  it('writes one chunk after the other, and stops at a failing one', async () => {
    let active = 0;
    const seen: number[] = [];
    const run = inChunks(
      [1, 2, 3],
      async ([n]) => {
        expect(++active).toBe(1);
        await new Promise((r) => setTimeout(r, 1));
        active--;
        if (n === 2) throw new Error('disk full');
        seen.push(n!);
      },
      1,
    );
    await expect(run).rejects.toThrow('disk full');
    expect(seen).toEqual([1]);
  });

  it('refuses a size that is not a positive integer', async () => {
    await expect(inChunks([1], async () => undefined, 0)).rejects.toThrow(/positive integer/);
  });
});
