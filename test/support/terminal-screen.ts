/**
 * What a terminal shows for a stream of output bytes: @xterm/headless (xterm.js without a renderer) interprets the
 * escape sequences (cursor moves, erasures, the line-wrapping mode) at a given width, and the screen and scrollback
 * are read back as the lines a person sees. A newline returns the carriage too, as a terminal's line discipline
 * does (`onlcr`), so a recorded stream reads as a pseudo-terminal's output would. Lines the terminal wrapped are joined again (`isWrapped`), so a
 * logical line that was shown whole reads whole, and one that was cut reads cut.
 */
import xterm from '@xterm/headless';

export async function terminalLines(output: string | Uint8Array, cols: number, rows = 30): Promise<string[]> {
  const term = new xterm.Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true, convertEol: true });
  await new Promise<void>((resolve) => term.write(output, resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (!line) continue;
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  term.dispose();
  while (lines.length && lines.at(-1) === '') lines.pop();
  return lines;
}
