import { Transform, type TransformCallback } from 'node:stream';

/**
 * A stream over anvil's state dump (JSON) that empties every `"traces"` array: anvil keeps the call trace of every
 * transaction it mined and dumps them all, ~70 % of an 8-day world's ~400 MB, which anvil then spends ~10 s parsing
 * on every load. Nothing the sandbox serves reads them back: receipts, logs and blocks are stored apart; only
 * `debug_traceTransaction` and `trace_*` of a loaded transaction answer without its calls. Transactions mined after
 * the load keep their traces (anvil records them), so the next dumps are small too.
 *
 * It scans bytes, strings and escapes included, across chunk boundaries, and keeps everything else as it was; the
 * key must be an object key (`"traces":` outside a string) whose value is an array.
 */
export function stripCallTraces(): Transform {
  const KEY = Buffer.from('traces');
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  const OPEN = 0x5b;
  const CLOSE = 0x5d;
  const COLON = 0x3a;
  const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

  // Outside the skipped value: in a string or not, and after an escape; the last string's bytes while it could still
  // be the key; after the key, waiting for its colon and then its array.
  let inString = false;
  let escaped = false;
  let keyLength = -1;
  let afterKey: 'none' | 'colon' | 'value' = 'none';
  // Inside the skipped array: its depth, and the same string state.
  let depth = 0;
  let skipInString = false;
  let skipEscaped = false;

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      const out: Buffer[] = [];
      let copyFrom = 0;
      const n = chunk.length;
      // Inside a string whose bytes do not matter (in the skipped value, or too long or unlike the key), jump to its
      // next quote or backslash: most of a dump is long hex strings.
      const next = (byte: number, from: number) => {
        const at = chunk.indexOf(byte, from);
        return at < 0 ? n : at;
      };
      let nextBackslash = -1;
      const jump = (i: number) => {
        if (nextBackslash < i) nextBackslash = next(BACKSLASH, i);
        return Math.min(next(QUOTE, i), nextBackslash);
      };
      for (let i = 0; i < n; i++) {
        if (depth > 0 ? skipInString && !skipEscaped : inString && !escaped && keyLength < 0) {
          i = jump(i);
          if (i === n) break;
        }
        const b = chunk[i]!;
        if (depth > 0) {
          if (skipInString) {
            if (skipEscaped) skipEscaped = false;
            else if (b === BACKSLASH) skipEscaped = true;
            else if (b === QUOTE) skipInString = false;
          } else if (b === QUOTE) skipInString = true;
          else if (b === OPEN) depth++;
          else if (b === CLOSE && --depth === 0) copyFrom = i;
          continue;
        }
        if (inString) {
          if (escaped) {
            escaped = false;
            keyLength = -1;
          } else if (b === BACKSLASH) {
            escaped = true;
            keyLength = -1;
          } else if (b === QUOTE) {
            inString = false;
            afterKey = keyLength === KEY.length ? 'colon' : 'none';
          } else if (keyLength >= 0) {
            keyLength = keyLength < KEY.length && KEY[keyLength] === b ? keyLength + 1 : -1;
          }
          continue;
        }
        if (b === QUOTE) {
          inString = true;
          keyLength = 0;
          afterKey = 'none';
        } else if (isSpace(b)) {
          // between the key, its colon and its value
        } else if (afterKey === 'colon' && b === COLON) {
          afterKey = 'value';
        } else if (afterKey === 'value' && b === OPEN) {
          // Keep the `[`, drop up to the matching `]`, which is copied with what follows.
          out.push(chunk.subarray(copyFrom, i + 1));
          depth = 1;
          afterKey = 'none';
        } else {
          afterKey = 'none';
        }
      }
      if (depth === 0) out.push(chunk.subarray(copyFrom));
      done(null, out.length === 1 ? out[0] : Buffer.concat(out));
    },
  });
}
