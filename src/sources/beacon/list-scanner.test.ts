import { describe, expect, it } from 'vitest';
import { type ListScanError, ListScanner, MAX_ELEMENT_CHARS } from './list-scanner.js';

/** The streaming reader of `{…, "data": [...]}` answers, fed in chunks of every size. */

const scan = (text: string, size: number) => {
  const out: unknown[] = [];
  const s = new ListScanner((v) => out.push(v));
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
  s.end();
  return out;
};

describe('ListScanner', () => {
  it('yields each element of the top-level data array whatever the chunking; other fields are skipped', () => {
    const data = [{ a: 1, s: 'x}"{]\\' }, { b: [2, { c: 3 }], e: 'é ✓' }, {}];
    const text = JSON.stringify({
      execution_optimistic: false,
      finalized: true,
      other: { data: [{ no: 1 }], t: '"data":[' },
      n: -1.5e3,
      data,
      after: null,
    });
    for (const size of [1, 2, 3, 5, 64, text.length]) expect(scan(text, size), String(size)).toEqual(data);
    expect(scan('  {"data" : [ ] }\n', 1)).toEqual([]);
  });

  it('refuses what is not a list answer, and says when it was cut short', () => {
    const fails = (text: string) => {
      try {
        scan(text, 7);
      } catch (err) {
        return err as ListScanError;
      }
      throw new Error(`accepted ${text}`);
    };
    expect(fails('[1,2]').message).toMatch(/not a JSON object/);
    expect(fails('{"data":{"a":1}}').message).toMatch(/data is not an array/);
    expect(fails('{"data":[1]}').message).toMatch(/data\[0\] is not an object/);
    expect(fails('{"x":1}').message).toMatch(/no data array/);
    expect(fails('{"data":[],"data":[]}').message).toMatch(/twice/);
    expect(fails('{"data":[{"a":1}]}{').message).toMatch(/after the answer/);
    const cut = fails('{"data":[{"a":1},{"b":');
    expect(cut.truncated).toBe(true);
    expect(cut.message).toMatch(/ended after 1 elements/);
    expect(fails(`{"data":[{"a":"${'x'.repeat(MAX_ELEMENT_CHARS)}"}]}`).message).toMatch(/over/);
  });
});
