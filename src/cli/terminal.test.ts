import { describe, expect, it } from 'vitest';
import { terminalLines } from '../../test/support/terminal-screen.js';
import { StartTerminal } from './terminal.js';

/** A terminal stream that records what is written (cli-progress asks for the cursor methods of a TTY). */
class Recorder {
  readonly isTTY = true;
  text = '';
  constructor(readonly columns: number) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
  cursorTo(x: number): boolean {
    this.text += `\x1b[${x + 1}G`;
    return true;
  }
  moveCursor(dx: number, dy: number): boolean {
    if (dy < 0) this.text += `\x1b[${-dy}A`;
    if (dy > 0) this.text += `\x1b[${dy}B`;
    if (dx) this.text += dx > 0 ? `\x1b[${dx}C` : `\x1b[${-dx}D`;
    return true;
  }
  clearLine(dir: -1 | 0 | 1): boolean {
    this.text += dir < 0 ? '\x1b[1K' : dir > 0 ? '\x1b[0K' : '\x1b[2K';
    return true;
  }
  clearScreenDown(): boolean {
    this.text += '\x1b[0J';
    return true;
  }
  getWindowSize(): [number, number] {
    return [this.columns, 24];
  }
}

const LONG = `  curl -H 'Authorization: Bearer ps_0123456789ab_${'x'.repeat(43)}' http://127.0.0.1:8080/data/liquidity/dex/available-dexes`;

describe('StartTerminal', () => {
  it.each([40, 80, 150])('at %i columns, lines written while the bar is drawn are shown whole', async (columns) => {
    const out = new Recorder(columns);
    const term = new StartTerminal(true, out);
    term.event({ kind: 'simulation', done: 10, total: 100 });
    term.write(`${LONG}\n`);
    term.event({ kind: 'simulation', done: 50, total: 100 });
    term.write('a second line\n');
    term.event({ kind: 'simulation', done: 60, total: 100 });
    term.stop();
    // Line wrapping is never switched off.
    expect(out.text).not.toContain('\x1b[?7l');
    const lines = await terminalLines(out.text, columns);
    expect(lines).toContain(LONG);
    expect(lines).toContain('a second line');
  });

  it('a line written just before the bar completes is not lost', async () => {
    const out = new Recorder(80);
    const term = new StartTerminal(true, out);
    term.event({ kind: 'simulation', done: 10, total: 100 });
    term.write(`${LONG}\n`);
    // Readiness: every computation published, the bar completes and is removed at once.
    term.event({ kind: 'history-done' });
    term.event({ kind: 'jobs', ingest: [] });
    term.event({ kind: 'readiness', waiting: 0, of: 1 });
    const lines = await terminalLines(out.text, 80);
    expect(lines).toContain(LONG);
    expect(lines.at(-1)).toBe('protoscore: first start complete; every dataset is served.');
  });

  it('without a bar (piped, JSON), text is written as it comes', () => {
    const out = new Recorder(80);
    const term = new StartTerminal(false, out);
    term.event({ kind: 'simulation', done: 10, total: 100 });
    term.write(`${LONG}\n`);
    expect(out.text).toBe(`${LONG}\n`);
  });
});
