/**
 * `start` at a terminal: a progress bar for the first start (phase, percentage, time left) with the readable log
 * lines scrolling above it. The model is FirstStartProgress (runtime/progress.ts); this file only draws it.
 */
import { MultiBar, type SingleBar } from 'cli-progress';
import type { StartProgressEvent } from '../runtime/embedded.js';
import { FirstStartProgress, formatEta, PHASES } from '../runtime/progress.js';

export class StartTerminal {
  private readonly progress = new FirstStartProgress(Date.now());
  private bars: MultiBar | undefined;
  private bar: SingleBar | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  /** `showBar`: stdout is a terminal and the lines are readable (not JSON). */
  constructor(private readonly showBar: boolean) {}

  /** Writes text (whole lines) above the bar, or straight to stdout when there is none. */
  readonly write = (text: string): void => {
    if (this.bars) this.bars.log(text);
    else process.stdout.write(text);
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
        process.stdout.write('protoscore: first start complete; every dataset is served.\n');
      }
      this.finished = true;
      return;
    }
    // `left`, not `eta`: cli-progress fills `{eta}` itself, from its own rate.
    const payload = { phase: view.phase.padEnd(18), step: view.step, left: formatEta(view.etaSeconds) };
    if (!this.bars) {
      this.bars = new MultiBar({
        stream: process.stdout,
        format: ' {phase} [{bar}] {percentage}% | phase {step}/3 | {left} left',
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        autopadding: true,
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
