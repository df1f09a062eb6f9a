/**
 * No source file over 800 lines (issue 25 item 7): a file that grows past it is split along its seams (data apart
 * from code, one concern per file), never listed here as an exception. Counted: every source file under `src/`
 * (TypeScript, tests included, and the Solidity the sandbox compiles). Not counted: the compiler's own output
 * (`*.json` artifacts beside the contracts), which no one edits by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const MAX_LINES = 800;
/** Files allowed over the limit, with the reason. None. */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|sol)$/.test(e.name) ? [p] : [];
  });
}

/** Lines as an editor counts them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

describe('source file size', () => {
  it('counts lines as wc -l does, plus an unterminated last line', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount(`${'x\n'.repeat(801)}`)).toBe(801);
  });

  it(`no file under src/ has more than ${MAX_LINES} lines`, () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((f) => ({
        file: path.relative(SRC, f).split(path.sep).join('/'),
        lines: lineCount(readFileSync(f, 'utf8')),
      }))
      .filter((x) => x.lines > MAX_LINES && !EXCEPTIONS.has(x.file))
      .map((x) => `${x.file}: ${x.lines} lines`);
    expect(over).toEqual([]);
    expect([...EXCEPTIONS.keys()]).toEqual([]);
  });
});
