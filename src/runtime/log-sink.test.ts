import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs.js';
import { LineSink } from './log-sink.js';

const tempDir = useTempDirs();

describe('LineSink', () => {
  const open: number[] = [];
  afterEach(() => {
    for (const fd of open.splice(0)) closeSync(fd);
  });
  const file = () => {
    const p = path.join(tempDir('log-sink-'), 'out.log');
    const fd = openSync(p, 'w');
    open.push(fd);
    return { p, fd };
  };

  it('writes lines in blocks, in order, and everything on flush', () => {
    const { p, fd } = file();
    const sink = new LineSink(fd, { flushChars: 100, intervalMs: 60_000 });
    sink.write('{"a":1}\n');
    expect(readFileSync(p, 'utf8')).toBe('');
    const many = Array.from({ length: 30 }, (_, i) => `{"i":${i},"é":"ü"}\n`);
    for (const line of many) sink.write(line);
    // Past 100 characters a block went out without waiting for the timer.
    expect(readFileSync(p, 'utf8').length).toBeGreaterThan(0);
    sink.end();
    expect(readFileSync(p, 'utf8')).toBe(`{"a":1}\n${many.join('')}`);
  });

  it('flushes on its timer', async () => {
    const { p, fd } = file();
    const sink = new LineSink(fd, { intervalMs: 20 });
    sink.write('x\n');
    await new Promise((r) => setTimeout(r, 80));
    expect(readFileSync(p, 'utf8')).toBe('x\n');
    sink.end();
  });

  it('drops and counts lines past its bound while the descriptor refuses them, then says so', () => {
    const { p, fd } = file();
    const sink = new LineSink(-1, { flushChars: 1_000_000, maxBufferedChars: 10, intervalMs: 60_000 });
    // An invalid descriptor is "gone for good": nothing is kept, nothing thrown.
    sink.write('0123456789\n');
    sink.write('dropped\n');
    sink.flush();
    sink.write('after\n');
    sink.end();
    const counting = new LineSink(fd, {
      flushChars: 1_000_000,
      maxBufferedChars: 12,
      intervalMs: 60_000,
      droppedLine: (n) => `dropped ${n}\n`,
    });
    counting.write('0123456789\n');
    counting.write('a\n');
    counting.write('b\n');
    counting.flush();
    counting.write('c\n');
    counting.end();
    // The count comes after the lines buffered before the drop, ahead of the next ones.
    expect(readFileSync(p, 'utf8')).toBe('0123456789\na\ndropped 1\nc\n');
  });
});
