import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

export interface LineSinkOptions {
  /** Write when this many characters are buffered (default 64 Ki). */
  readonly flushChars?: number;
  /** And at least this often while lines wait (default 100 ms). */
  readonly intervalMs?: number;
  /** Lines beyond this many buffered characters, while the fd does not take them, are dropped and counted. */
  readonly maxBufferedChars?: number;
  /** The line that reports dropped lines (it is written ahead of the next lines that get through). */
  readonly droppedLine?: (count: number) => string;
}

/**
 * Where the service's log lines go: a file descriptor (stdout), written in blocks with `writeSync`.
 *
 * pino's own destination (sonic-boom, asynchronous) made an access line cost 6.5 µs of CPU, against 1.5 µs with
 * this sink (`bench/api/log-line.ts`, docs/benchmarks.md, "API"): the difference was most of what an access line
 * per request cost the API.
 * Lines are joined and written when 64 Ki characters are waiting or every 100 ms, so a line is out within 100 ms,
 * and everything left is written when the process exits. A write that is refused for now (EAGAIN on a
 * non-blocking pipe) keeps its bytes for the next tick; a reader that never drains the pipe cannot make memory
 * grow without bound: past `maxBufferedChars` new lines are dropped and counted, and the count is logged after the
 * lines that were buffered when the dropping started. A closed stdout (EPIPE) drops everything silently: there is nowhere to say it.
 */
export class LineSink implements DestinationStream {
  private parts: string[] = [];
  private chars = 0;
  /** Bytes a previous write did not take. */
  private pending: Buffer | undefined;
  private dropped = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly flushChars: number;
  private readonly maxBufferedChars: number;

  constructor(
    private readonly fd: number,
    private readonly options: LineSinkOptions = {},
  ) {
    this.flushChars = options.flushChars ?? 65_536;
    this.maxBufferedChars = options.maxBufferedChars ?? 16 * 1024 * 1024;
    this.timer = setInterval(() => this.flush(), options.intervalMs ?? 100);
    this.timer.unref();
  }

  write(line: string): void {
    if (this.closed) return;
    if (this.chars + (this.pending?.length ?? 0) >= this.maxBufferedChars) {
      this.dropped++;
      return;
    }
    this.parts.push(line);
    this.chars += line.length;
    if (this.chars >= this.flushChars) this.flush();
  }

  /** Writes what is buffered, as far as the descriptor takes it now. */
  flush(): void {
    if (this.closed || (this.chars === 0 && this.pending === undefined)) return;
    let text = this.parts.join('');
    if (this.dropped > 0 && this.options.droppedLine && this.pending === undefined) {
      text += this.options.droppedLine(this.dropped);
      this.dropped = 0;
    }
    this.parts = [];
    this.chars = 0;
    let buf: Buffer | undefined = text.length ? Buffer.from(text, 'utf8') : undefined;
    if (this.pending) buf = buf ? Buffer.concat([this.pending, buf]) : this.pending;
    this.pending = undefined;
    let offset = 0;
    while (buf && offset < buf.length) {
      try {
        offset += writeSync(this.fd, buf, offset, buf.length - offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          this.pending = buf.subarray(offset);
          return;
        }
        // EPIPE, EBADF, …: the reader is gone for good.
        this.closed = true;
        return;
      }
    }
  }

  /** pino's name for a flush that completes before returning (used at exit). */
  flushSync(): void {
    this.flush();
  }

  /** Stops the timer after a last flush. */
  end(): void {
    this.flush();
    clearInterval(this.timer);
  }
}
