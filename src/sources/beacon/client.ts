import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { checkAnswer } from '../schema-mismatch.js';
import { fetchText, jsonOrTransient, retryTransient } from '../transient.js';
import {
  FinalityResponse,
  GenesisResponse,
  HeaderResponse,
  SpecResponse,
  VALIDATOR_STATUSES,
  type ValidatorStatus,
  ValidatorsResponse,
} from './schemas.js';

/**
 * The beacon node API client (Ethereum Beacon APIs): genesis, spec, head header, finality checkpoints and
 * validators by status. Retries 5xx, 429 (`Retry-After`), timeouts and network errors with backoff and jitter
 * (core/retry.ts) under a concurrency limit; 4xx and schema mismatches fail at once (`BeaconError`, not retryable).
 * On mainnet the validator registry holds over a million entries: the area reads it once a day, one status filter
 * per request (`?status=`), never the whole registry in one answer.
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
  /** Per request; validators answers are large on mainnet (default 120 s). */
  readonly timeoutMs?: number;
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
  /** Σ effective balance of active_* validators, gwei. */
  readonly activeStakeGwei: bigint;
  /** Σ balance of every validator read, gwei. */
  readonly totalBalanceGwei: bigint;
}

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

  /** Validators of the given statuses at a state, one request per status (the query's `status` filter). */
  async validators(stateId: string, statuses: readonly ValidatorStatus[] = VALIDATOR_STATUSES) {
    const out = [];
    for (const status of statuses) {
      const path = `/eth/v1/beacon/states/${encodeURIComponent(stateId)}/validators?status=${status}`;
      const r = check(path, ValidatorsResponse, await this.get(path));
      for (const v of r.data) {
        if (v.status !== status) {
          throw new BeaconError(`beacon ${path}: validator ${v.index} has status ${v.status}, not ${status}`, false);
        }
      }
      out.push(...r.data);
    }
    return out;
  }

  /** Counts and stake of the registry at a state, status by status. */
  async validatorCounts(stateId: string): Promise<ValidatorCounts> {
    const byStatus = Object.fromEntries(VALIDATOR_STATUSES.map((s) => [s, 0])) as Record<ValidatorStatus, number>;
    let active = 0n;
    let total = 0n;
    for (const status of VALIDATOR_STATUSES) {
      for (const v of await this.validators(stateId, [status])) {
        byStatus[status]++;
        total += BigInt(v.balance);
        if (status.startsWith('active_')) active += BigInt(v.validator.effective_balance);
      }
    }
    return { byStatus, activeStakeGwei: active, totalBalanceGwei: total };
  }

  private get(path: string): Promise<unknown> {
    return retryTransient(
      path,
      () => this.limiter.run(() => this.once(path)),
      { source: 'beacon', maxRetries: this.options.maxRetries ?? 4, random: this.random, sleep: this.sleep },
      (reason, attempts) => new BeaconError(`beacon ${path}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(path: string): Promise<unknown> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.options.baseUrl}${path}`,
      { headers: { accept: 'application/json' } },
      this.options.timeoutMs ?? 120_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), Date.now()),
    );
    if (res.status !== 200) {
      let message = text.slice(0, 200);
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {}
      throw new BeaconError(`beacon ${path}: HTTP ${res.status}: ${message}`, false, res.status);
    }
    return jsonOrTransient(text);
  }
}
