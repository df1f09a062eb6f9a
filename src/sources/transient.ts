/**
 * The retry policy the JSON-over-HTTP sources without a rate-limit ledger of their own share (the beacon node, dYdX's
 * indexer, GMX's oracle keeper, Synthetix's exchange API): an attempt that failed in a way another attempt can fix
 * throws `Transient` (a timeout, a network error, 408/429/5xx, an answer that is not JSON), and `retryTransient`
 * runs it again after the wait the server asked for (`Retry-After`, read by the caller) or a jittered exponential
 * backoff, up to the client's number of retries; anything else (a 4xx, an answer its schema refuses) fails at once.
 * Each client keeps its own error classes, its concurrency limit and its reading of the answer.
 */
import { backoffDelay, type SleepFn } from '../core/retry.js';
import type { EvmLogger } from './evm/types.js';

/** A failed attempt worth repeating, with the wait the server asked for, if it asked. */
export class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'Transient';
  }
}

/** A client's running counts (requests made, retries, 429s, time slept), which its tests and status read. */
export interface TransientStats {
  requests: number;
  retries: number;
  /** 429 answers. */
  limited: number;
  sleptMs: number;
}

export const emptyStats = (): TransientStats => ({ requests: 0, retries: 0, limited: 0, sleptMs: 0 });

export interface RetryPolicy {
  /** The source's name in log lines (`dydx`, `gmx_oracle`, …). */
  readonly source: string;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The first backoff (default 500 ms), doubled per attempt up to `maxMs` (default 30 s), with full jitter. */
  readonly baseMs?: number | undefined;
  readonly maxMs?: number | undefined;
  readonly random?: (() => number) | undefined;
  readonly sleep: SleepFn;
  readonly log?: EvmLogger | undefined;
  readonly stats?: TransientStats | undefined;
}

/**
 * `attempt()`, repeated after each `Transient` failure under `policy`; after the last retry, the error `giveUp` makes
 * of the last failure's reason and the number of attempts. Any other error passes through at once.
 */
export async function retryTransient<T>(
  what: string,
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  giveUp: (reason: string, attempts: number) => Error,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof Transient)) throw err;
      if (n >= policy.maxRetries) throw giveUp(err.message, n + 1);
      const delay =
        err.retryAfterMs ??
        backoffDelay(n, {
          baseMs: policy.baseMs ?? 500,
          maxMs: policy.maxMs ?? 30_000,
          random: policy.random ?? Math.random,
        });
      if (policy.stats) {
        policy.stats.retries++;
        policy.stats.sleptMs += delay;
      }
      policy.log?.[n < 2 ? 'debug' : 'warn'](
        { source: policy.source, what, attempt: n + 1, delayMs: delay },
        `${policy.source}: retrying ${what}: ${err.message}`,
      );
      await policy.sleep(delay);
    }
  }
}

/**
 * One request with a timeout, its body read as text: a timeout or a network error throws `Transient`; so does a 408,
 * a 429 or a 5xx (with the wait `retryAfterMs` reads from its headers), except the statuses `final` names (a 501 that
 * says an endpoint is not implemented). Other statuses are the caller's to read.
 */
export async function fetchText(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  retryAfterMs: (headers: Headers) => number | undefined,
  stats?: TransientStats,
  final?: readonly number[],
): Promise<{ readonly res: Response; readonly text: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  if (stats) stats.requests++;
  try {
    res = await fetchFn(url, { ...init, signal });
    text = await res.text();
  } catch (err) {
    if (signal.aborted) throw new Transient('timeout');
    throw new Transient(`network error: ${(err as Error).message}`);
  }
  if (res.status === 429 && stats) stats.limited++;
  if ((res.status === 429 || res.status === 408 || res.status >= 500) && !final?.includes(res.status)) {
    throw new Transient(`HTTP ${res.status}`, retryAfterMs(res.headers));
  }
  return { res, text };
}

/** An answer's JSON, or `Transient` when it is not JSON (cut short, or an error page in front of the API). */
export function jsonOrTransient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Transient(`malformed answer (${text.length} bytes, not JSON)`);
  }
}

/** The time limits of a streamed answer: to its headers, between two chunks of its body, and in all. */
export interface StreamTimeouts {
  readonly headersMs: number;
  readonly idleMs: number;
  readonly totalMs: number;
}

/**
 * One request whose 200 body is handed to `onText` chunk by chunk as it arrives (decoded UTF-8), never held whole:
 * for answers too large to read into memory. A 408, 429 or 5xx throws `Transient` (with the server's wait), as does
 * a network error or a timeout: no headers within `headersMs`, no chunk for `idleMs`, or the body not done within
 * `totalMs`. Another status comes back with its (short) body as `text`, for the caller to read. An error `onText`
 * throws passes through as it is (and the request is cancelled).
 */
export async function fetchStream(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  timeouts: StreamTimeouts,
  retryAfterMs: (headers: Headers) => number | undefined,
  onText: (chunk: string) => void,
  stats?: TransientStats,
): Promise<{ readonly res: Response; readonly text?: string }> {
  const controller = new AbortController();
  let why = '';
  const abort = (reason: string) => {
    why = reason;
    controller.abort();
  };
  const total = setTimeout(() => abort(`timeout: the answer took over ${timeouts.totalMs} ms`), timeouts.totalMs);
  let idle = setTimeout(() => abort(`timeout: no answer within ${timeouts.headersMs} ms`), timeouts.headersMs);
  if (stats) stats.requests++;
  try {
    let res: Response;
    try {
      res = await fetchFn(url, { ...init, signal: controller.signal });
    } catch (err) {
      throw new Transient(why || `network error: ${(err as Error).message}`);
    }
    if (res.status === 429 && stats) stats.limited++;
    if (res.status === 429 || res.status === 408 || res.status >= 500) {
      await res.body?.cancel().catch(() => undefined);
      throw new Transient(`HTTP ${res.status}`, retryAfterMs(res.headers));
    }
    if (res.status !== 200 || !res.body) {
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw new Transient(why || `network error: ${(err as Error).message}`);
      }
      return { res, text };
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const rearm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort(`timeout: no data for ${timeouts.idleMs} ms`), timeouts.idleMs);
    };
    rearm();
    for (;;) {
      const part = await reader.read().catch((err: unknown) => {
        throw new Transient(why || `network error: ${(err as Error).message}`);
      });
      if (part.done) break;
      rearm();
      try {
        onText(decoder.decode(part.value, { stream: true }));
      } catch (err) {
        await reader.cancel().catch(() => undefined);
        throw err;
      }
    }
    const tail = decoder.decode();
    if (tail) onText(tail);
    return { res };
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
  }
}
