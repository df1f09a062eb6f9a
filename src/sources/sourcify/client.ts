import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import { type ContractSourceOutcome, MalformedStandardJsonError, standardJsonOf } from '../contract-source.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer, matches } from '../schema-mismatch.js';
import { emptyStats, fetchText, jsonOrTransient, retryTransient, type TransientStats } from '../transient.js';
import { SOURCIFY_FIELDS, SourcifyContract, SourcifyError, SourcifyMinimal } from './schemas.js';

/**
 * Sourcify's API v2 (`GET /v2/contract/{chainId}/{address}?fields=compilation,sources,stdJsonInput`), one client per
 * process. Sourcify takes no key.
 *
 * - 200: verified, with `match` (`exact_match`: the metadata hash matches too; `match`: the bytecode without it) and
 *   the standard-JSON input (`stdJsonInput`) it was verified with.
 * - 404 with `VerifiedContractMinimal` (`match: null`): not verified. A 404 with an error body (`route_not_found`)
 *   is a base URL that is not Sourcify's v2 API: `invalid`.
 * - 429 (`too_many_requests`), 5xx, 408, timeouts, network errors and a 200 that is not JSON are retried
 *   (`retryTransient`: `Retry-After` when sent, else backoff with jitter), then `unavailable`.
 * - 400 (`unsupported_chain`, `invalid_parameter`), another status, an answer off the schema or a `stdJsonInput` that
 *   is not a compiler input: `invalid`, at once.
 *
 * `lookup` never throws for what the service answers; only a bad argument (not an address) throws `RangeError`.
 */

export const SOURCIFY_URL = 'https://sourcify.dev/server';

export interface SourcifyClientOptions {
  /** Default Sourcify's public server. */
  readonly baseUrl?: string;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Retries of one request before giving up (default 4). */
  readonly maxRetries?: number;
  /** First backoff step (default 1 s), doubling up to 30 s. */
  readonly baseDelayMs?: number;
  /** Requests in flight at once (default 2: Sourcify's public server is shared). */
  readonly concurrency?: number;
  /** Per request (default 60 s: a large contract's answer runs to megabytes). */
  readonly timeoutMs?: number;
  readonly log?: EvmLogger;
}

/** A Sourcify answer the client cannot use (not retryable). */
export class SourcifyClientError extends ServiceError {
  constructor(
    message: string,
    readonly status?: number,
    /** Sourcify's `customCode` (`unsupported_chain`, `route_not_found`, …) when the body had one. */
    readonly customCode?: string,
  ) {
    super(message, false);
    this.name = 'SourcifyClientError';
  }
}

/** Why an address is checked before it goes into a URL. */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export class SourcifyClient {
  readonly stats: TransientStats = emptyStats();
  readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly sleepFn: SleepFn;
  private readonly slots: Semaphore;

  constructor(private readonly options: SourcifyClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? SOURCIFY_URL).replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
    this.sleepFn = options.sleep ?? ((ms: number) => sleep(ms));
    this.slots = new Semaphore(options.concurrency ?? 2);
  }

  /** The verified source of `address` on chain `chainId`, or why there is none (`ContractSourceOutcome`). */
  async lookup(chainId: number, address: string): Promise<ContractSourceOutcome> {
    if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`not a chain id: ${chainId}`);
    if (!ADDRESS.test(address)) throw new RangeError(`not an address: ${JSON.stringify(address)}`);
    const what = `/v2/contract/${chainId}/${address.toLowerCase()}`;
    let answer: { status: number; body: unknown };
    try {
      answer = await retryTransient(
        what,
        () => this.slots.run(() => this.once(`${what}?fields=${SOURCIFY_FIELDS}`)),
        {
          source: 'sourcify',
          maxRetries: this.options.maxRetries ?? 4,
          baseMs: this.options.baseDelayMs ?? 1000,
          random: this.options.random,
          sleep: this.sleepFn,
          log: this.options.log,
          stats: this.stats,
        },
        (reason, attempts) =>
          new ServiceError(`Sourcify ${what}: unavailable after ${attempts} attempts: ${reason}`, true),
      );
    } catch (err) {
      if (err instanceof ServiceError && err.retryable) return { kind: 'unavailable', reason: err.message };
      if (err instanceof SourcifyClientError) return { kind: 'invalid', reason: err.message };
      throw err;
    }
    try {
      return read(what, chainId, answer.status, answer.body);
    } catch (err) {
      if (err instanceof SourcifyClientError || err instanceof MalformedStandardJsonError) {
        return { kind: 'invalid', reason: err.message };
      }
      throw err;
    }
  }

  private async once(pathAndQuery: string): Promise<{ status: number; body: unknown }> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.baseUrl}${pathAndQuery}`,
      { headers: { accept: 'application/json' } },
      this.options.timeoutMs ?? 60_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), this.clock.nowMs()),
      this.stats,
    );
    if (res.status === 200 || res.status === 404) return { status: res.status, body: jsonOrTransient(text) };
    throw new SourcifyClientError(
      `Sourcify ${pathAndQuery.split('?')[0]}: HTTP ${res.status}: ${errorOf(text)}`,
      res.status,
      codeOf(text),
    );
  }
}

/** An answer (200 or 404) as an outcome; throws `SourcifyClientError` or `MalformedStandardJsonError`. */
function read(what: string, chainId: number, status: number, body: unknown): ContractSourceOutcome {
  if (status === 404) {
    if (matches(SourcifyMinimal, body) && body.match === null) return { kind: 'unverified' };
    throw new SourcifyClientError(
      `Sourcify ${what}: HTTP 404: ${matches(SourcifyError, body) ? `${body.customCode}: ${body.message}` : 'not a v2 answer'}`,
      404,
      matches(SourcifyError, body) ? body.customCode : undefined,
    );
  }
  const c = checkAnswer(
    SourcifyContract,
    body,
    (path, message) => new SourcifyClientError(`Sourcify ${what}: invalid response at ${path || '/'}: ${message}`),
  );
  if (c.match === null) return { kind: 'unverified' };
  if (Number(c.chainId) !== chainId) {
    throw new SourcifyClientError(`Sourcify ${what}: the answer is about chain ${c.chainId}`);
  }
  return {
    kind: 'verified',
    source: {
      service: 'sourcify',
      chainId,
      address: c.address.toLowerCase(),
      name: c.compilation.name,
      fullyQualifiedName: c.compilation.fullyQualifiedName,
      compilerVersion: c.compilation.compilerVersion,
      input: standardJsonOf(c.stdJsonInput, `Sourcify ${what} stdJsonInput`),
      match: c.match,
    },
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorOf(text: string): string {
  const body = parsed(text);
  if (matches(SourcifyError, body)) return `${body.customCode}: ${body.message}`;
  return text.replace(/\s+/g, ' ').trim().slice(0, 200) || '(empty body)';
}

function codeOf(text: string): string | undefined {
  const body = parsed(text);
  return matches(SourcifyError, body) ? body.customCode : undefined;
}
