/**
 * A streaming reader of a Beacon API list answer (`{ …, "data": [ {…}, {…}, … ] }`): text goes in chunk by chunk,
 * and each element of the top-level `data` array comes out parsed, one at a time, as soon as its closing brace
 * arrives. Only the element being read is held (a validator is ≈ 450 bytes of JSON), never the array: memory stays
 * bounded whatever the answer's size (the mainnet registry is over a million validators, hundreds of megabytes).
 * It tracks strings (with escapes) and nesting so braces inside strings do not count; other top-level fields
 * (`execution_optimistic`, `finalized`) are skipped. An answer that is not an object with a `data` array, or that ends
 * before it closes, is an error (`ListScanError`), never a short count.
 */

export class ListScanError extends Error {
  constructor(
    message: string,
    /** The answer ended before the object closed (cut short: worth another attempt). */
    readonly truncated = false,
  ) {
    super(message);
    this.name = 'ListScanError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** An element longer than this is refused (a validator is ≈ 450 bytes): the bound on what one element may hold. */
export const MAX_ELEMENT_CHARS = 1 << 20;

/** Keys longer than this at the top level are not `data` and are not kept whole. */
const MAX_KEY = 64;

export class ListScanner {
  /** Nesting depth outside the current element: 0 before the answer, 1 inside the top object, 2 inside `data`. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The top-level key being read or last read, and whether the next value is that key's. */
  private key = '';
  private keyOpen = false;
  private afterColon = false;
  private valueStarted = false;
  /** Inside `data`: the element's text so far (from its `{`), and its own nesting depth. */
  private element = '';
  private elementDepth = 0;
  private inData = false;
  private sawData = false;
  private done = false;
  /** Elements read. */
  count = 0;

  constructor(private readonly onElement: (value: unknown) => void) {}

  push(chunk: string): void {
    // Where the current element's text starts in this chunk (0: it began in an earlier chunk).
    let start = this.elementDepth > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.elementDepth > 0) {
        // Inside an element: only strings and braces matter until it closes.
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) this.inString = false;
          continue;
        }
        if (c === QUOTE) this.inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.elementDepth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--this.elementDepth === 0) {
            const text = this.element + chunk.slice(start, i + 1);
            this.element = '';
            start = -1;
            this.emit(text);
          }
        }
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        else if (this.keyOpen && this.key.length <= MAX_KEY) this.key += chunk[i];
        continue;
      }
      if (c <= 0x20) continue; // whitespace
      if (this.done) throw new ListScanError('unexpected text after the answer');
      if (this.depth === 0) {
        if (c !== OPEN_BRACE) throw new ListScanError('the answer is not a JSON object');
        this.depth = 1;
        continue;
      }
      if (this.inData) {
        // Between the elements of `data`, or at its end.
        if (c === OPEN_BRACE) {
          this.elementDepth = 1;
          start = i;
          this.element = '';
        } else if (c === CLOSE_BRACKET) {
          this.inData = false;
          this.depth = 1;
        } else if (c !== COMMA) throw new ListScanError(`data[${this.count}] is not an object`);
        continue;
      }
      if (this.depth > 1) {
        // Inside another top-level field's object or array value: skipped.
        if (c === QUOTE) this.inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.depth--;
        continue;
      }
      // depth 1: the top object's keys and values.
      if (!this.afterColon) {
        if (c === QUOTE) {
          this.inString = true;
          this.keyOpen = true;
          this.key = '';
        } else if (c === COLON) {
          this.keyOpen = false;
          this.afterColon = true;
          this.valueStarted = false;
        } else if (c === CLOSE_BRACE) this.close();
        else if (c !== COMMA) throw new ListScanError('malformed top-level object');
        continue;
      }
      if (!this.valueStarted && this.key === 'data') {
        if (c !== OPEN_BRACKET) throw new ListScanError('data is not an array');
        if (this.sawData) throw new ListScanError('data appears twice');
        this.sawData = true;
        this.inData = true;
        this.depth = 2;
        this.valueStarted = true;
        continue;
      }
      this.valueStarted = true;
      if (c === COMMA) this.afterColon = false;
      else if (c === CLOSE_BRACE) this.close();
      else if (c === QUOTE) {
        this.inString = true;
        this.keyOpen = false;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      // else: a scalar's character (`true`, a number), skipped.
    }
    if (this.elementDepth > 0) {
      this.element += chunk.slice(start);
      if (this.element.length > MAX_ELEMENT_CHARS) {
        throw new ListScanError(`data[${this.count}] is over ${MAX_ELEMENT_CHARS} characters`);
      }
    }
  }

  private close(): void {
    this.depth = 0;
    this.done = true;
  }

  /** The answer has ended: it must have closed, with a `data` array. */
  end(): void {
    if (!this.done) throw new ListScanError(`the answer ended after ${this.count} elements, before it closed`, true);
    if (!this.sawData) throw new ListScanError('the answer has no data array');
  }

  private emit(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ListScanError(`data[${this.count}] is not valid JSON`);
    }
    this.count++;
    this.onElement(value);
  }
}
