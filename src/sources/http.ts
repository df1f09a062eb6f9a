/**
 * What every source's client is given when the runtime opens it (`runtime/sources.ts`), once per process: the
 * areas that read one API share its client, and so its rate-limit budget (the limits it learned from the answers,
 * its pace, its requests in flight), its ETag store and its logger. An area never constructs a client; it takes
 * the opened one from `env.sources`.
 *
 * A client's waits (rate limits, backoff) end with the stop signal of the work it runs for: the job runner runs
 * each pass under its signal (`runWithStop`), so a stopping service is not held for a minute-long limit, although
 * the client outlives every pass.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type SleepFn, sleepOrStop } from '../core/retry.js';
import type { Clock } from '../core/time.js';
import type { EvmLogger } from './evm/types.js';
import type { EtagStore } from './github/etag.js';

/** What the runtime injects into a source's client at open; tests pass their clock and instant sleeps. */
export interface SourceOpenOptions {
  readonly log?: EvmLogger | undefined;
  /** The clock rate-limit resets (and token expiries) are read against (default the system's). */
  readonly clock?: Clock | undefined;
  /** How the client waits (default `stoppableSleep`: ends with the running pass's stop signal). */
  readonly sleep?: SleepFn | undefined;
  /** Retries of transient failures before giving up (default the client's own). */
  readonly maxRetries?: number | undefined;
  /** The persistent conditional-request cache of a source that revalidates (GitHub's): 304s survive a restart. */
  readonly etags?: EtagStore | undefined;
}

/** What every opened source's handle says of itself. */
export interface OpenedSource {
  /**
   * Its words in `meta.source` (docs/vocabulary.md): the source definition's label, `sandbox:`-prefixed when the
   * sandbox's stand-in serves it (`github`, `sandbox:github`, `sandbox:bitcoin:regtest`, …).
   */
  readonly source: string;
  /** Where the data comes from, in words (the stand-in's description when the sandbox serves it). */
  readonly label?: string;
}

const running = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` as work that stops with `signal`: a shared client's waits inside it end when the signal aborts. */
export function runWithStop<T>(signal: AbortSignal, fn: () => T): T {
  return running.run(signal, fn);
}

/** A sleep that throws `StoppedError` when the work it waits for (`runWithStop`) is stopped. */
export function stoppableSleep(what: string): SleepFn {
  return (ms: number) => sleepOrStop(ms, running.getStore(), what);
}

/** The client options every HTTP source takes from its open options. */
export function clientOptions(options: SourceOpenOptions, what: string) {
  return {
    sleep: options.sleep ?? stoppableSleep(what),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
}
