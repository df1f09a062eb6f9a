import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { stripCallTraces } from './strip-traces.js';

/** The stream's output for `text` cut into chunks at `cuts`. */
async function strip(text: string, cuts: readonly number[]): Promise<string> {
  const bytes = Buffer.from(text);
  const bounds = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  const chunks = bounds.slice(1).map((end, i) => bytes.subarray(bounds[i], end));
  return (await buffer(Readable.from(chunks).pipe(stripCallTraces()))).toString();
}

/** What the stream must give: every `traces` key's array emptied, the rest unchanged (whitespace aside). */
function expected(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expected);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'traces' && Array.isArray(v) ? [] : expected(v)]),
    );
  }
  return value;
}

/** A dump-shaped document with the cases a scanner can get wrong: brackets, quotes and the key's name in strings. */
const DUMP = {
  block: { number: '0x1' },
  accounts: { '0xab': { code: '0x', storage: {}, note: 'traces' } },
  transactions: [
    {
      info: {
        transaction_hash: '0x01',
        traces: [
          {
            parent: null,
            children: [1, [2, [3]]],
            trace: { data: '0x5b5d', output: 'a "quoted ] bracket" and \\ a backslash \\"[', kind: 'CALL' },
          },
        ],
        out: 'traces',
      },
      receipt: { logs: [{ data: '0x', topics: ['0x00'] }], traces_note: ['kept'] },
    },
    { info: { transaction_hash: '0x02', traces: [] }, receipt: { status: '0x1' } },
    { info: { 'trace\\"s': ['kept: an escaped key is another key'], traces: [[[]], '"]"'] } },
  ],
  traces: 'a string value is kept',
};

describe('stripCallTraces', () => {
  it('empties every traces array, and keeps everything else', async () => {
    for (const text of [JSON.stringify(DUMP), JSON.stringify(DUMP, null, 2)]) {
      const out = await strip(text, []);
      expect(JSON.parse(out)).toEqual(expected(DUMP));
      expect(out.length).toBeLessThan(text.length);
    }
  });

  it('gives the same bytes however the stream is cut', async () => {
    const text = JSON.stringify(DUMP, null, 1);
    const whole = await strip(text, []);
    // Every single cut, then random sets of cuts (a fixed generator: the same cases on every run).
    for (let cut = 1; cut < text.length; cut++) expect(await strip(text, [cut])).toBe(whole);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round++) {
      const cuts = Array.from(
        { length: 1 + Math.floor(random() * 20) },
        () => 1 + Math.floor(random() * (text.length - 1)),
      );
      expect(await strip(text, cuts)).toBe(whole);
    }
  });

  it('passes a document without traces through unchanged', async () => {
    const text = JSON.stringify({ accounts: { a: [1, 2, '[', ']'] }, note: '"traces":[1]' });
    expect(await strip(text, [5, 17])).toBe(text);
  });
});
