import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { checkAnswer, matches } from '../schema-mismatch.js';
import { fetchStream, fetchText, jsonOrTransient, retryTransient, Transient } from '../transient.js';
import { ListScanError, ListScanner } from './list-scanner.js';
import {
  FinalityResponse,
  GenesisResponse,
  HeaderResponse,
  SpecResponse,
  VALIDATOR_STATUSES,
  ValidatorCountResponse,
  ValidatorEntry,
  type ValidatorStatus,
  ValidatorsResponse,
} from './schemas.js';

/**
 * The beacon node API client (Ethereum Beacon APIs): genesis, spec, head header, finality checkpoints and
 * validators by status. Retries 5xx, 429 (`Retry-After`), timeouts and network errors with backoff and jitter
 * (core/retry.ts) under a concurrency limit; 4xx and schema mismatches fail at once (`BeaconError`, not retryable).
 * On mainnet the validator registry holds over a million entries (hundreds of megabytes of JSON): `validatorCounts`
 * never holds it. It asks the node's counting endpoint first (`/eth/v1/beacon/states/{id}/validator_count`, a Prysm
 * extension the standard Beacon APIs lack; a node without it answers 400/403/404/405/501 and is not asked again in
 * that read), then reads the list one status filter per request (`?status=`), streamed: each entry is parsed and
 * tallied as it arrives (`ListScanner`), so memory stays bounded whatever the registry's size. The list is what gives
 * the stake sums; where a provider refuses it (413, 429 or 5xx after the retries) and the counting endpoint answered,
 * the counts stand and the sums are null with the refusal as their reason.
 */

export interface BeaconClientOptions {
  readonly baseUrl: string;
  readonly fetch?: typeof fetch;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  /** Default 4. */
  readonly maxRetries?: number;
  /** Default 2. */
  readonly maxConcurrency?: number;
  /** Per request, to the whole answer (the validator list: to its headers) (default 120 s). */
  readonly timeoutMs?: number;
  /** The streamed validator list: the longest wait for its next chunk (default 60 s). */
  readonly idleTimeoutMs?: number;
  /**
   * The streamed validator list: the longest one status's answer may take in all (default 30 min: a million entries
   * are ≈ 450 MB, 7.5 min at 1 MB/s).
   */
  readonly listTimeoutMs?: number;
}

export class BeaconError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
  ) {
    super(message, retryable);
    this.name = 'BeaconError';
  }
}

function check<T extends TSchema>(endpoint: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(
    schema,
    value,
    (path, message) => new BeaconError(`beacon ${endpoint}: unexpected answer at ${path || '/'}: ${message}`, false),
  );
}

export interface Finality {
  readonly finalizedEpoch: number;
  readonly justifiedEpoch: number;
  readonly finalizedRoot: string;
}

export interface ValidatorCounts {
  readonly byStatus: Record<ValidatorStatus, number>;
  /** Σ effective balance of active_* validators, gwei; null when the list could not be read (`sumsUnavailable`). */
  readonly activeStakeGwei: bigint | null;
  /** Σ balance of every validator read, gwei; null likewise. */
  readonly totalBalanceGwei: bigint | null;
  /** Where the counts come from: the node's counting endpoint, or the list read entry by entry. */
  readonly countedBy: 'validator_count' | 'validators';
  /** Why the sums are null: the list was refused (or disagreed with the counting endpoint's counts). */
  readonly sumsUnavailable?: string;
}

/** Answers of the counting endpoint that say the node does not serve it. */
const NO_COUNT_ENDPOINT = [400, 403, 404, 405, 501];

/** One status's tally of the streamed list. */
interface StatusTally {
  count: number;
  effectiveGwei: bigint;
  balanceGwei: bigint;
}

const zeroCounts = () => Object.fromEntries(VALIDATOR_STATUSES.map((s) => [s, 0])) as Record<ValidatorStatus, number>;

/** What `once` answers for an endpoint the node does not serve. */
const NOT_SERVED = Symbol('not served');

export class BeaconClient {
  private readonly limiter: Semaphore;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: SleepFn;
  private readonly random: () => number;

  constructor(private readonly options: BeaconClientOptions) {
    this.limiter = new Semaphore(options.maxConcurrency ?? 2);
    this.fetchFn = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.random = options.random ?? Math.random;
  }

  async genesis(): Promise<{ genesisTime: number; validatorsRoot: string }> {
    const r = check('/eth/v1/beacon/genesis', GenesisResponse, await this.get('/eth/v1/beacon/genesis'));
    return { genesisTime: Number(r.data.genesis_time), validatorsRoot: r.data.genesis_validators_root };
  }

  async spec(): Promise<{ secondsPerSlot: number; slotsPerEpoch: number }> {
    const r = check('/eth/v1/config/spec', SpecResponse, await this.get('/eth/v1/config/spec'));
    return { secondsPerSlot: Number(r.data.SECONDS_PER_SLOT), slotsPerEpoch: Number(r.data.SLOTS_PER_EPOCH) };
  }

  async headSlot(): Promise<number> {
    const path = '/eth/v1/beacon/headers/head';
    return Number(check(path, HeaderResponse, await this.get(path)).data.header.message.slot);
  }

  async finality(stateId = 'head'): Promise<Finality> {
    const path = `/eth/v1/beacon/states/${encodeURIComponent(stateId)}/finality_checkpoints`;
    const r = check(path, FinalityResponse, await this.get(path));
    return {
      finalizedEpoch: Number(r.data.finalized.epoch),
      justifiedEpoch: Number(r.data.current_justified.epoch),
      finalizedRoot: r.data.finalized.root,
    };
  }

  /**
   * Validators of the given statuses at a state, one request per status (the query's `status` filter), held in
   * memory: for small reads. Counting the registry is `validatorCounts`, which does not hold it.
   */
  async validators(stateId: string, statuses: readonly ValidatorStatus[] = VALIDATOR_STATUSES) {
    const out = [];
    for (const status of statuses) {
      const path = `/eth/v1/beacon/states/${encodeURIComponent(stateId)}/validators?status=${status}`;
      const r = check(path, ValidatorsResponse, await this.get(path));
      for (const v of r.data) {
        if (v.status !== status) {
          throw new BeaconError(`beacon ${path}: validator ${v.index} has status ${v.status}, not ${status}`, false);
        }
        // One by one: spreading a large answer into push() overflows the call stack (860,000 entries did).
        out.push(v);
      }
    }
    return out;
  }

  /**
   * Counts and stake of the registry at a state, with bounded memory: the counts from the node's counting endpoint
   * when it has one, the sums (and, without that endpoint, the counts) from the list streamed status by status.
   */
  async validatorCounts(stateId: string): Promise<ValidatorCounts> {
    const counted = await this.countEndpoint(stateId);
    const byStatus = zeroCounts();
    let active = 0n;
    let total = 0n;
    try {
      for (const status of VALIDATOR_STATUSES) {
        const t = await this.tallyStatus(stateId, status);
        byStatus[status] = t.count;
        total += t.balanceGwei;
        if (status.startsWith('active_')) active += t.effectiveGwei;
      }
    } catch (err) {
      if (!counted || !(err instanceof BeaconError)) throw err;
      return {
        byStatus: counted,
        activeStakeGwei: null,
        totalBalanceGwei: null,
        countedBy: 'validator_count',
        sumsUnavailable: err.message,
      };
    }
    if (!counted) return { byStatus, activeStakeGwei: active, totalBalanceGwei: total, countedBy: 'validators' };
    const differ = VALIDATOR_STATUSES.filter((s) => counted[s] !== byStatus[s]);
    if (!differ.length) {
      return { byStatus: counted, activeStakeGwei: active, totalBalanceGwei: total, countedBy: 'validator_count' };
    }
    return {
      byStatus: counted,
      activeStakeGwei: null,
      totalBalanceGwei: null,
      countedBy: 'validator_count',
      sumsUnavailable: `beacon state ${stateId}: the validator list and validator_count disagree on ${differ
        .map((s) => `${s} (${byStatus[s]} listed, ${counted[s]} counted)`)
        .join(', ')}`,
    };
  }

  /**
   * The counting endpoint's counts for every status, or null where the node does not serve it. Asked with every
   * exact status (`?status=` each), it answers one `{status, count}` per status (Prysm's shape).
   */
  private async countEndpoint(stateId: string): Promise<Record<ValidatorStatus, number> | null> {
    const query = VALIDATOR_STATUSES.map((s) => `status=${s}`).join('&');
    const path = `/eth/v1/beacon/states/${encodeURIComponent(stateId)}/validator_count?${query}`;
    const answer = await this.get(path, NO_COUNT_ENDPOINT);
    if (answer === NOT_SERVED) return null;
    const r = check(path, ValidatorCountResponse, answer);
    const out = zeroCounts();
    const seen = new Set<string>();
    for (const { status, count } of r.data) {
      if (!(VALIDATOR_STATUSES as readonly string[]).includes(status) || seen.has(status)) {
        throw new BeaconError(`beacon ${path}: unexpected or repeated status ${status}`, false);
      }
      seen.add(status);
      out[status as ValidatorStatus] = Number(count);
    }
    const missing = VALIDATOR_STATUSES.filter((s) => !seen.has(s));
    if (missing.length) throw new BeaconError(`beacon ${path}: no count for ${missing.join(', ')}`, false);
    return out;
  }

  /** One status's entries at a state, streamed and tallied as they arrive (retried whole on a transient failure). */
  private tallyStatus(stateId: string, status: ValidatorStatus): Promise<StatusTally> {
    const path = `/eth/v1/beacon/states/${encodeURIComponent(stateId)}/validators?status=${status}`;
    return retryTransient(
      path,
      () => this.limiter.run(() => this.tallyOnce(path, status)),
      { source: 'beacon', maxRetries: this.options.maxRetries ?? 4, random: this.random, sleep: this.sleep },
      (reason, attempts) =>
        new BeaconError(
          `beacon ${path}: the validator list refused or failed after ${attempts} attempts: ${reason}`,
          true,
        ),
    );
  }

  private async tallyOnce(path: string, status: ValidatorStatus): Promise<StatusTally> {
    const tally: StatusTally = { count: 0, effectiveGwei: 0n, balanceGwei: 0n };
    const scanner = new ListScanner((v) => {
      if (!matches(ValidatorEntry, v)) check(`${path} data[${tally.count}]`, ValidatorEntry, v);
      const entry = v as ValidatorEntry;
      if (entry.status !== status) {
        throw new BeaconError(
          `beacon ${path}: validator ${entry.index} has status ${entry.status}, not ${status}`,
          false,
        );
      }
      tally.count++;
      tally.balanceGwei += BigInt(entry.balance);
      tally.effectiveGwei += BigInt(entry.validator.effective_balance);
    });
    const push = (text: string) => {
      try {
        scanner.push(text);
      } catch (err) {
        if (err instanceof ListScanError) throw new BeaconError(`beacon ${path}: ${err.message}`, false);
        throw err;
      }
    };
    const { res, text } = await fetchStream(
      this.fetchFn,
      `${this.options.baseUrl}${path}`,
      { headers: { accept: 'application/json' } },
      {
        headersMs: this.options.timeoutMs ?? 120_000,
        idleMs: this.options.idleTimeoutMs ?? 60_000,
        totalMs: this.options.listTimeoutMs ?? 30 * 60_000,
      },
      (headers) => parseRetryAfter(headers.get('retry-after'), Date.now()),
      push,
    );
    if (res.status !== 200) throw this.httpError(path, res.status, text ?? '');
    try {
      scanner.end();
    } catch (err) {
      if (err instanceof ListScanError && err.truncated) throw new Transient(`${err.message} (cut short)`);
      throw new BeaconError(`beacon ${path}: ${(err as Error).message}`, false);
    }
    return tally;
  }

  private get(path: string, notServed?: readonly number[]): Promise<unknown> {
    return retryTransient(
      path,
      () => this.limiter.run(() => this.once(path, notServed)),
      { source: 'beacon', maxRetries: this.options.maxRetries ?? 4, random: this.random, sleep: this.sleep },
      (reason, attempts) => new BeaconError(`beacon ${path}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  /** One request's JSON; `NOT_SERVED` for a status in `notServed` (an endpoint the node lacks). */
  private async once(path: string, notServed?: readonly number[]): Promise<unknown> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.options.baseUrl}${path}`,
      { headers: { accept: 'application/json' } },
      this.options.timeoutMs ?? 120_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), Date.now()),
      undefined,
      notServed,
    );
    if (notServed?.includes(res.status)) return NOT_SERVED;
    if (res.status !== 200) throw this.httpError(path, res.status, text);
    return jsonOrTransient(text);
  }

  private httpError(path: string, status: number, text: string): BeaconError {
    let message = text.slice(0, 200);
    try {
      message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
    } catch {}
    return new BeaconError(`beacon ${path}: HTTP ${status}: ${message}`, false, status);
  }
}
