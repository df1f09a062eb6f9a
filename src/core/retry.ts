/**
 * The one retry policy of the service: exponential backoff with jitter, `Retry-After` parsing, an abortable
 * sleep and a semaphore. Used by every client of the outside (EVM JSON-RPC, GitHub, the sources that come later)
 * and by the job runner, so that waits look and stop alike everywhere.
 */

export type SleepFn = (ms: number) => Promise<void>;

export interface BackoffOptions {
  /** The first step, in milliseconds. */
  readonly baseMs: number;
  /** No wait is longer than this. */
  readonly maxMs: number;
  /** Jitter source in [0, 1) (tests pass their own). */
  readonly random?: () => number;
}

/**
 * The wait before retry number `attempt` (0 for the first retry): "equal jitter", uniform in [cap/2, cap] with
 * cap = min(maxMs, baseMs × 2^attempt). Half of the wait is guaranteed (a failing peer gets room), the other
 * half is spread so that clients that failed together do not retry together.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const random = options.random ?? Math.random;
  const cap = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** `Retry-After` is either delay seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Waits `ms`, or less when `signal` aborts (it resolves then, it does not throw: callers check the signal). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The error a wait throws when its signal aborted: the work stopped on purpose, it did not fail. */
export class StoppedError extends Error {
  constructor(what: string) {
    super(`${what}: stopped`);
    this.name = 'StoppedError';
  }
}

/** Waits `ms` and throws `StoppedError` when `signal` aborted meanwhile (or before). */
export async function sleepOrStop(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  if (signal?.aborted) throw new StoppedError(what);
  await sleep(ms, signal);
  if (signal?.aborted) throw new StoppedError(what);
}

/** A counting semaphore: at most `limit` holders at once, others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`semaphore limit must be ≥ 1, got ${limit}`);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter, so `active` never dips below the real count.
      if (next) next();
      else this.active--;
    }
  }
}
