/**
 * `start` at a terminal: a progress bar for the first start (phase, percentage, time left) with the readable log
 * lines scrolling above it. The model is FirstStartProgress (runtime/progress.ts); this file only draws it.
 *
 * Text never goes through the bar library: cli-progress's `log()` buffers lines until its next redraw (so a line
 * logged just before the bar stops is lost) and, by default, turns the terminal's line wrapping off while it draws
 * (so a line longer than the terminal is cut at its last column). Here wrapping stays on (`linewrap: true`: the
 * library then cuts only the bar itself to the width) and `write` clears the bar's line and writes the text at once,
 * whole; the bar is drawn again below it at its next redraw. Lines a user must copy (the curl lines) are therefore
 * never cut or lost, whatever the terminal's width.
 */
import { MultiBar, type SingleBar } from 'cli-progress';
import type { StartProgressEvent } from '../runtime/embedded.js';
import { FirstStartProgress, formatEta, PHASES } from '../runtime/progress.js';

/** Carriage return, then erase the whole line: where the bar was drawn. */
const CLEAR_LINE = '\r\x1b[2K';

export interface TerminalStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export class StartTerminal {
  private readonly progress = new FirstStartProgress(Date.now());
  private bars: MultiBar | undefined;
  private bar: SingleBar | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  /**
   * `showBar`: stdout is a terminal and the lines are readable (not JSON). `stream`: where everything is written
   * (stdout; a test passes a recorder).
   */
  constructor(
    private readonly showBar: boolean,
    private readonly stream: TerminalStream = process.stdout,
  ) {}

  /** Writes text (whole lines) above the bar, or straight to the stream when there is none. */
  readonly write = (text: string): void => {
    // The bar is drawn on the cursor's line: erase it; the next redraw puts it back below the text.
    this.stream.write(this.bars ? `${CLEAR_LINE}${text}` : text);
  };

  readonly event = (event: StartProgressEvent): void => {
    const now = Date.now();
    switch (event.kind) {
      case 'simulation':
        this.progress.simulation(event.done, event.total, now);
        break;
      case 'history-done':
        this.progress.historyDone(now);
        break;
      case 'jobs':
        this.progress.jobs(event.ingest, now);
        break;
      case 'run':
        this.progress.jobFinished(event.job, event.ok, now);
        break;
      case 'readiness':
        this.progress.readiness(event.waiting, event.of, now);
        break;
    }
    this.render();
  };

  private render(): void {
    if (!this.showBar || this.finished) return;
    const view = this.progress.view(Date.now());
    if (view.phase === 'done') {
      if (this.bar) {
        this.bar.update(100, { phase: 'ready', step: PHASES.length, left: '0 s' });
        this.stop();
        this.stream.write('protoscore: first start complete; every dataset is served.\n');
      }
      this.finished = true;
      return;
    }
    // `left`, not `eta`: cli-progress fills `{eta}` itself, from its own rate.
    const payload = { phase: view.phase.padEnd(18), step: view.step, left: formatEta(view.etaSeconds) };
    if (!this.bars) {
      this.bars = new MultiBar({
        // cli-progress needs a Writable's cursor methods; the stream is stdout outside tests.
        stream: this.stream as NodeJS.WritableStream,
        format: ' {phase} [{bar}] {percentage}% | phase {step}/3 | {left} left',
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        autopadding: true,
        // Keep the terminal's line wrapping on (see the comment at the top): the bar alone is cut to the width.
        linewrap: true,
      });
      this.bar = this.bars.create(100, 0, payload);
      // The estimate changes with time even when no event comes.
      this.timer = setInterval(() => this.render(), 1000);
      this.timer.unref();
    }
    this.bar?.update(Math.floor(view.fraction * 100), payload);
  }

  /** Removes the bar (at shutdown, or when the first start is complete). */
  stop(): void {
    clearInterval(this.timer);
    this.bars?.stop();
    this.bars = undefined;
    this.bar = undefined;
  }
}
