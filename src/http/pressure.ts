/**
 * Overload shedding answers to request load only. @fastify/under-pressure measures the event loop; the loop can
 * also stall without any request load (start-up, a long garbage collection), and refusing the few requests that
 * arrive then helps nobody. So a request is shed only when the loop is behind and requests are arriving at least at
 * SHED_MIN_REQUESTS_PER_SECOND. Since issue 12 the job side of `start` runs on its own thread, so the API's loop is
 * busy only with requests.
 */

/** Mean event-loop delay over a sample (1 s) above which the API sheds: a second behind is a service in trouble. */
export const MAX_EVENT_LOOP_DELAY_MS = 1000;

/** Below this rate of arriving requests, nothing is shed whatever the loop says (a poller sends ~40/s). */
export const SHED_MIN_REQUESTS_PER_SECOND = 100;

/** Requests arriving per second: the last full second's count, or the current second's when higher. */
export class ArrivalRate {
  private current = 0;
  private last = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly minPerSecond = SHED_MIN_REQUESTS_PER_SECOND) {
    this.timer = setInterval(() => {
      this.last = this.current;
      this.current = 0;
    }, 1000);
    this.timer.unref();
  }

  count(): void {
    this.current++;
  }

  perSecond(): number {
    return Math.max(this.current, this.last);
  }

  /** Enough requests arrive for shedding to relieve the service. */
  loaded(): boolean {
    return this.perSecond() >= this.minPerSecond;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
