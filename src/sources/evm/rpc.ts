import { ServiceError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import type { EvmLogger } from './types.js';

/**
 * JSON-RPC over HTTP with the failure handling real providers need: retries with exponential backoff and jitter
 * on network errors, timeouts, 5xx, 429 (honouring `Retry-After`), transient JSON-RPC errors and malformed
 * bodies; a limit on requests in flight; batches. Non-transient JSON-RPC errors are returned or thrown at once,
 * so callers (the log splitter, multicall) can react to them.
 */

export interface RpcClientOptions {
  readonly url: string;
  /** For logs and error messages. */
  readonly chain: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxConcurrency: number;
  /** Calls per JSON-RPC batch request (default 100: several providers refuse larger batches). */
  readonly maxBatchSize?: number;
  readonly log?: EvmLogger;
  readonly sleep?: SleepFn;
  /** Source of jitter, [0, 1). */
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** First backoff step (default 250 ms); doubles per attempt up to `maxDelayMs` (default 15 s). */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** A `Retry-After` longer than this fails the call (retryable) instead of blocking the job (default 60 s). */
  readonly maxRetryAfterMs?: number;
}

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export type RpcOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: RpcError };

export interface RpcStats {
  /** HTTP requests sent (a batch counts once). */
  requests: number;
  /** JSON-RPC calls sent, retries included. */
  calls: number;
  retries: number;
  /** Waits asked by `Retry-After`. */
  rateLimited: number;
}

/**
 * An error the node answered (JSON-RPC error object) or an HTTP status that retrying cannot fix. `retryable` is
 * false for those; transient ones only escape wrapped in `RpcUnavailableError` after the retries.
 */
export class RpcError extends ServiceError {
  constructor(
    readonly method: string,
    /** JSON-RPC error code; undefined for HTTP-level failures. */
    readonly code: number | undefined,
    readonly rpcMessage: string,
    readonly data: unknown,
    retryable: boolean,
    readonly httpStatus?: number,
  ) {
    super(`${method}: ${rpcMessage}${code === undefined ? '' : ` (code ${code})`}`, retryable);
    this.name = 'RpcError';
  }
}

/** The endpoint kept failing transiently through every retry: the job runner should try again later. */
export class RpcUnavailableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, true, options);
    this.name = 'RpcUnavailableError';
  }
}

/** A failed attempt worth retrying; never escapes this module. */
class TransientFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Messages of providers refusing an `eth_getLogs` because of its block span or result size (Infura, Alchemy,
 * QuickNode, Ankr, geth, Erigon, Cloudflare phrasings). Retrying the same call cannot help; a smaller range can.
 */
const LOG_RANGE_PATTERN =
  /more than \d[\d,]* results|too many (results|logs|blocks)|returned more than|block range|range (is )?too (large|wide|big)|max(imum)? (block )?range|limited to (a )?[\d,]+ (block )?range|range limit|response size|size exceeded|result(s)? limit|too large|exceed(s|ed)? (the )?max|query timeout|timeout exceeded/i;

/** Messages of load, rate or availability problems: the same call may succeed later. */
const TRANSIENT_PATTERN =
  /rate.?limit|too many requests|timeout|timed out|temporar|try again|busy|overload|unavailable|header not found|capacity|upstream|backend|connection|econnreset|internal error|request limit|daily request count|compute units/i;

/** JSON-RPC codes that mean "later": internal error, resource unavailable, limit exceeded, HTTP-like 429. */
const TRANSIENT_CODES = new Set([-32603, -32002, -32005, 429]);

export function isLogRangeMessage(message: string): boolean {
  return LOG_RANGE_PATTERN.test(message);
}

/**
 * Whether a JSON-RPC error object describes a condition that may pass (retry) rather than a refusal. For
 * `eth_getLogs`, size and range complaints (a node's query timeout included) are refusals: the same call would
 * fail again, a smaller range will not.
 */
export function isTransientRpcError(code: number | undefined, message: string, method?: string): boolean {
  if (method === 'eth_getLogs' && isLogRangeMessage(message)) return false;
  if (code !== undefined && TRANSIENT_CODES.has(code)) return true;
  return TRANSIENT_PATTERN.test(message);
}

interface JsonRpcResponse {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorOf(response: JsonRpcResponse): { code: number | undefined; message: string; data: unknown } {
  const e = response.error ?? {};
  return {
    code: typeof e.code === 'number' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : JSON.stringify(e),
    data: e.data,
  };
}

export class RpcClient {
  readonly stats: RpcStats = { requests: 0, calls: 0, retries: 0, rateLimited: 0 };
  private readonly limiter: Semaphore;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private readonly fetchFn: typeof fetch;
  private readonly maxBatchSize: number;
  private nextId = 1;
  /** Set when the endpoint refuses batch bodies: calls then go one by one (still under the concurrency limit). */
  private batchUnsupported = false;

  constructor(private readonly options: RpcClientOptions) {
    this.limiter = new Semaphore(options.maxConcurrency);
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.random = options.random ?? Math.random;
    this.fetchFn = options.fetch ?? fetch;
    this.maxBatchSize = options.maxBatchSize ?? 100;
  }

  /** One call; throws `RpcError` (refused) or `RpcUnavailableError` (retries exhausted). */
  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [outcome] = await this.execute([{ method, params }], false);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.result as T;
  }

  /**
   * Many calls in JSON-RPC batches of at most `maxBatchSize`, run in parallel under the concurrency limit. Each
   * call gets its outcome (refusals included); throws `RpcUnavailableError` only when transient failures outlast
   * the retries.
   */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    if (this.batchUnsupported) return Promise.all(calls.map((c) => this.execute([c], false).then((o) => o[0]!)));
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += this.maxBatchSize) chunks.push(calls.slice(i, i + this.maxBatchSize));
    const results = await Promise.all(chunks.map((chunk) => this.execute(chunk, true)));
    return results.flat();
  }

  private backoffMs(attempt: number): number {
    return backoffDelay(attempt, {
      baseMs: this.options.baseDelayMs ?? 250,
      maxMs: this.options.maxDelayMs ?? 15_000,
      random: this.random,
    });
  }

  private async execute(calls: readonly RpcCall[], asBatch: boolean): Promise<RpcOutcome[]> {
    const outcomes: (RpcOutcome | undefined)[] = new Array(calls.length);
    let pending = calls.map((_, i) => i);
    for (let attempt = 0; ; attempt++) {
      let failure: TransientFailure;
      try {
        const settled = await this.limiter.run(() =>
          this.post(
            pending.map((i) => calls[i]!),
            asBatch,
          ),
        );
        const stillPending: number[] = [];
        const reasons: string[] = [];
        settled.forEach((s, k) => {
          const index = pending[k]!;
          if (s instanceof TransientFailure) {
            stillPending.push(index);
            reasons.push(s.message);
          } else outcomes[index] = s;
        });
        if (stillPending.length === 0) return outcomes as RpcOutcome[];
        pending = stillPending;
        failure = new TransientFailure(
          stillPending.length === 1 ? reasons[0]! : `${stillPending.length} calls failed (${reasons[0]})`,
        );
      } catch (err) {
        if (err instanceof BatchRefused) {
          this.batchUnsupported = true;
          this.options.log?.warn(
            { chain: this.options.chain, reason: err.message },
            'RPC endpoint refuses batch requests: sending calls one by one',
          );
          const rest = await Promise.all(pending.map((i) => this.execute([calls[i]!], false)));
          pending.forEach((i, k) => {
            outcomes[i] = rest[k]![0];
          });
          return outcomes as RpcOutcome[];
        }
        if (!(err instanceof TransientFailure)) throw err;
        failure = err;
      }
      const methods = [...new Set(pending.map((i) => calls[i]!.method))].join(',');
      if (attempt >= this.options.maxRetries) {
        throw new RpcUnavailableError(
          `${this.options.chain} RPC unavailable after ${attempt + 1} attempts (${methods}): ${failure.message}`,
          { cause: failure },
        );
      }
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > (this.options.maxRetryAfterMs ?? 60_000)) {
        throw new RpcUnavailableError(
          `${this.options.chain} RPC asks to wait ${Math.round(failure.retryAfterMs / 1000)} s (${methods})`,
          { cause: failure },
        );
      }
      const delay = failure.retryAfterMs ?? this.backoffMs(attempt);
      this.stats.retries++;
      if (failure.retryAfterMs !== undefined) this.stats.rateLimited++;
      // Early retries are routine on public endpoints; repeated ones deserve attention.
      const level = attempt < 2 ? 'debug' : 'warn';
      this.options.log?.[level](
        { chain: this.options.chain, methods, attempt: attempt + 1, delayMs: delay, reason: failure.message },
        'RPC retry',
      );
      await this.sleep(delay);
    }
  }

  /**
   * One HTTP request. Throws `TransientFailure` when the whole request failed in a retryable way; otherwise
   * returns per call an outcome, or a `TransientFailure` for calls to send again.
   */
  private async post(calls: readonly RpcCall[], asBatch: boolean): Promise<(RpcOutcome | TransientFailure)[]> {
    const ids = calls.map(() => this.nextId++);
    const bodies = calls.map((c, k) => ({ jsonrpc: '2.0', id: ids[k], method: c.method, params: c.params }));
    const body = JSON.stringify(asBatch ? bodies : bodies[0]);
    this.stats.requests++;
    this.stats.calls += calls.length;

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    let status: number;
    let retryAfter: string | null;
    let text: string;
    try {
      const res = await this.fetchFn(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: controller.signal,
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      // Reading the body stays under the same timer: a stalled body is a timeout too.
      text = await res.text();
    } catch (err) {
      if (controller.signal.aborted) throw new TransientFailure(`timeout after ${this.options.timeoutMs} ms`);
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new TransientFailure(`network error: ${(err as Error).message}${cause ? ` (${cause})` : ''}`);
    } finally {
      clearTimeout(timer);
    }

    if (status === 429 || status === 408 || status >= 500) {
      throw new TransientFailure(`HTTP ${status}`, parseRetryAfter(retryAfter, Date.now()));
    }
    if (status < 200 || status >= 300) {
      // 401, 403, 404, 413…: configuration or request problems no retry fixes.
      const message = `HTTP ${status}: ${text.slice(0, 200)}`;
      return calls.map((c) => ({
        ok: false,
        error: new RpcError(c.method, undefined, message, undefined, false, status),
      }));
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TransientFailure(`malformed response: invalid JSON (${text.length} bytes)`);
    }

    if (!asBatch) return [this.outcomeOf(calls[0]!, parsed, ids[0]!, false)];
    if (!Array.isArray(parsed)) {
      if (isObject(parsed) && isObject(parsed.error)) {
        const e = errorOf(parsed as JsonRpcResponse);
        if (isTransientRpcError(e.code, e.message)) throw new TransientFailure(`batch refused: ${e.message}`);
        throw new BatchRefused(e.message);
      }
      throw new TransientFailure('malformed response: batch answered without an array');
    }
    const byId = new Map<unknown, unknown>();
    for (const item of parsed) if (isObject(item)) byId.set(item.id, item);
    return calls.map((c, k) => this.outcomeOf(c, byId.get(ids[k]), ids[k]!, true));
  }

  private outcomeOf(call: RpcCall, response: unknown, id: number, inBatch: boolean): RpcOutcome | TransientFailure {
    if (!isObject(response)) {
      return new TransientFailure(inBatch ? `malformed response: no answer for ${call.method}` : 'malformed response');
    }
    if (response.id !== id) return new TransientFailure(`malformed response: id ${String(response.id)} ≠ ${id}`);
    if (response.error !== undefined && response.error !== null) {
      const e = errorOf(response as JsonRpcResponse);
      if (isTransientRpcError(e.code, e.message, call.method)) {
        return new TransientFailure(`${call.method}: ${e.message}${e.code === undefined ? '' : ` (code ${e.code})`}`);
      }
      return { ok: false, error: new RpcError(call.method, e.code, e.message, e.data, false) };
    }
    if (!('result' in response)) return new TransientFailure(`malformed response: ${call.method} without result`);
    return { ok: true, result: response.result };
  }
}

class BatchRefused extends Error {}
