import { ServiceError } from '../../core/errors.js';
import { Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import {
  type ContractSource,
  type ContractSourceOutcome,
  MalformedStandardJsonError,
  parseCompilerJson,
  type StandardJsonInput,
  standardJsonOf,
} from '../contract-source.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer, matches } from '../schema-mismatch.js';
import {
  emptyStats,
  fetchText,
  jsonOrTransient,
  retryTransient,
  Transient,
  type TransientStats,
} from '../transient.js';
import {
  EtherscanCreationAnswer,
  type EtherscanCreationEntry,
  EtherscanNotOk,
  EtherscanSourceAnswer,
  type EtherscanSourceEntry,
} from './schemas.js';

/**
 * Etherscan's API V2 (`GET /v2/api?chainid=…&module=contract&action=getsourcecode|getcontractcreation`), one client
 * per process, one key for every chain.
 *
 * - The key goes in the `apikey` query parameter, as Etherscan requires: the client keeps it in a private field and
 *   builds the URL only to send it. No log line, error message or stat names the URL; they name the action and the
 *   address.
 * - Pace: Etherscan's free plan allows 5 calls a second (docs.etherscan.io "Rate Limits"): the client spaces its
 *   requests by `minIntervalMs` (default 250 ms), one at a time.
 * - Etherscan answers errors with HTTP 200 and `status: "0"`: its rate limit (`Max calls per sec rate limit
 *   reached`) is retried after a second, as are 429, 5xx, timeouts and answers that are not JSON; then
 *   `unavailable`. A refused key (`Invalid API Key`, `Missing/Invalid API Key`) or another `NOTOK` is `invalid`.
 * - `getsourcecode`: an empty `SourceCode` is "not verified"; a source in any of Etherscan's three forms becomes a
 *   standard-JSON input (`etherscanInput`); a form that does not parse is `invalid` with the reason.
 */

export const ETHERSCAN_URL = 'https://api.etherscan.io';

export interface EtherscanClientOptions {
  /** Default Etherscan's host (the V2 API is `/v2/api` below it). */
  readonly baseUrl?: string;
  /** Secret: sent as the `apikey` parameter, never logged. */
  readonly apiKey?: string | undefined;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Retries of one request before giving up (default 4). */
  readonly maxRetries?: number;
  /** First backoff step (default 1 s), doubling up to 30 s. */
  readonly baseDelayMs?: number;
  /** Least time between two requests (default 250 ms: under the free plan's 5 a second). */
  readonly minIntervalMs?: number;
  /** Per request (default 60 s). */
  readonly timeoutMs?: number;
  readonly log?: EvmLogger;
}

/** An Etherscan answer the client cannot use (not retryable): a refused key, an unknown chain, an answer off schema. */
export class EtherscanClientError extends ServiceError {
  constructor(message: string) {
    super(message, false);
    this.name = 'EtherscanClientError';
  }
}

/** The wait after Etherscan's per-second limit: its window is a second. */
export const ETHERSCAN_LIMIT_WAIT_MS = 1_000;

/** A contract's creation as Etherscan records it (`getcontractcreation`). */
export interface ContractCreation {
  /** Lowercase. */
  readonly address: string;
  readonly creator: string;
  readonly txHash: string;
  /** Where V2 says (older answers do not). */
  readonly blockNumber?: number;
  readonly timestamp?: number;
  /** The factory contract that created it, when one did. */
  readonly factory?: string;
}

export type CreationOutcome =
  | { readonly kind: 'found'; readonly creations: readonly ContractCreation[] }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export class EtherscanClient {
  readonly stats: TransientStats = emptyStats();
  readonly baseUrl: string;
  /** Whether a key is configured (the key itself stays private). */
  readonly hasKey: boolean;
  readonly #apiKey: string | undefined;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly sleepFn: SleepFn;
  private readonly slots = new Semaphore(1);
  private readonly options: Omit<EtherscanClientOptions, 'apiKey'>;
  private nextAtMs = 0;

  constructor(options: EtherscanClientOptions = {}) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = apiKey;
    this.hasKey = apiKey !== undefined && apiKey !== '';
    this.baseUrl = (options.baseUrl ?? ETHERSCAN_URL).replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
    this.sleepFn = options.sleep ?? ((ms: number) => sleep(ms));
  }

  /** `getsourcecode`: the verified source of `address` on `chainId`, or why there is none. */
  async lookup(chainId: number, address: string): Promise<ContractSourceOutcome> {
    checkArgs(chainId, [address]);
    const what = `getsourcecode ${chainId}:${address.toLowerCase()}`;
    try {
      const body = await this.get(what, { chainid: String(chainId), action: 'getsourcecode', address });
      const answer = checkAnswer(
        EtherscanSourceAnswer,
        body,
        (path, message) =>
          new EtherscanClientError(`Etherscan ${what}: invalid response at ${path || '/'}: ${message}`),
      );
      const entry = answer.result[0]!;
      if (entry.SourceCode.trim() === '') return { kind: 'unverified' };
      return { kind: 'verified', source: etherscanSource(entry, chainId, address) };
    } catch (err) {
      return outcomeOf(err);
    }
  }

  /** `getcontractcreation` for up to five addresses: each one's creator, transaction and (V2) block. */
  async creations(chainId: number, addresses: readonly string[]): Promise<CreationOutcome> {
    checkArgs(chainId, addresses);
    if (addresses.length === 0 || addresses.length > 5) {
      throw new RangeError(`getcontractcreation takes 1 to 5 addresses, got ${addresses.length}`);
    }
    const list = addresses.map((a) => a.toLowerCase()).join(',');
    const what = `getcontractcreation ${chainId}:${list}`;
    try {
      const body = await this.get(what, {
        chainid: String(chainId),
        action: 'getcontractcreation',
        contractaddresses: list,
      });
      if (matches(EtherscanNotOk, body) && /no data found/i.test(body.message)) return { kind: 'found', creations: [] };
      const answer = checkAnswer(
        EtherscanCreationAnswer,
        body,
        (path, message) =>
          new EtherscanClientError(`Etherscan ${what}: invalid response at ${path || '/'}: ${message}`),
      );
      return { kind: 'found', creations: answer.result.map(creationOf) };
    } catch (err) {
      const o = outcomeOf(err);
      if (o.kind === 'unavailable' || o.kind === 'invalid') return o;
      throw err;
    }
  }

  private get(what: string, params: Record<string, string>): Promise<unknown> {
    return retryTransient(
      what,
      () => this.slots.run(() => this.once(what, params)),
      {
        source: 'etherscan',
        maxRetries: this.options.maxRetries ?? 4,
        baseMs: this.options.baseDelayMs ?? 1000,
        random: this.options.random,
        sleep: this.sleepFn,
        log: this.options.log,
        stats: this.stats,
      },
      (reason, attempts) =>
        new ServiceError(`Etherscan ${what}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(what: string, params: Record<string, string>): Promise<unknown> {
    const waitMs = this.nextAtMs - this.clock.nowMs();
    if (waitMs > 0) {
      this.stats.sleptMs += waitMs;
      await this.sleepFn(waitMs);
    }
    this.nextAtMs = Math.max(this.clock.nowMs(), this.nextAtMs) + (this.options.minIntervalMs ?? 250);
    const q = new URLSearchParams({ chainid: params.chainid!, module: 'contract', ...params });
    if (this.#apiKey) q.set('apikey', this.#apiKey);
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.baseUrl}/v2/api?${q}`,
      { headers: { accept: 'application/json' } },
      this.options.timeoutMs ?? 60_000,
      () => ETHERSCAN_LIMIT_WAIT_MS,
      this.stats,
    );
    if (res.status !== 200) throw new EtherscanClientError(`Etherscan ${what}: HTTP ${res.status}`);
    const body = jsonOrTransient(text);
    // "No data found" is an answer (nothing created there), not an error.
    if (matches(EtherscanNotOk, body) && typeof body.result === 'string' && !/no data found/i.test(body.message)) {
      if (/rate limit/i.test(body.result)) {
        this.stats.limited++;
        this.nextAtMs = Math.max(this.nextAtMs, this.clock.nowMs() + ETHERSCAN_LIMIT_WAIT_MS);
        throw new Transient(`rate limited: ${body.result}`, ETHERSCAN_LIMIT_WAIT_MS);
      }
      throw new EtherscanClientError(`Etherscan ${what}: ${body.message}: ${body.result.slice(0, 200)}`);
    }
    return body;
  }
}

function checkArgs(chainId: number, addresses: readonly string[]): void {
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`not a chain id: ${chainId}`);
  for (const a of addresses) if (!ADDRESS.test(a)) throw new RangeError(`not an address: ${JSON.stringify(a)}`);
}

/** A failure as an outcome: retryable ones `unavailable`, the client's own and malformed inputs `invalid`. */
function outcomeOf(err: unknown): Extract<ContractSourceOutcome, { kind: 'unavailable' | 'invalid' }> {
  if (err instanceof ServiceError && err.retryable) return { kind: 'unavailable', reason: err.message };
  if (err instanceof EtherscanClientError || err instanceof MalformedStandardJsonError) {
    return { kind: 'invalid', reason: err.message };
  }
  throw err;
}

function creationOf(e: EtherscanCreationEntry): ContractCreation {
  return {
    address: e.contractAddress.toLowerCase(),
    creator: e.contractCreator.toLowerCase(),
    txHash: e.txHash.toLowerCase(),
    ...(e.blockNumber !== undefined ? { blockNumber: Number(e.blockNumber) } : {}),
    ...(e.timestamp !== undefined ? { timestamp: Number(e.timestamp) } : {}),
    ...(e.contractFactory && ADDRESS.test(e.contractFactory) ? { factory: e.contractFactory.toLowerCase() } : {}),
  };
}

/** A verified `getsourcecode` entry as a `ContractSource`; throws `MalformedStandardJsonError`. */
export function etherscanSource(entry: EtherscanSourceEntry, chainId: number, address: string): ContractSource {
  const proxy = entry.Proxy === '1';
  return {
    service: 'etherscan',
    chainId,
    address: address.toLowerCase(),
    name: entry.ContractName,
    compilerVersion: entry.CompilerVersion,
    input: etherscanInput(entry),
    match: 'verified',
    ...(proxy
      ? {
          proxy: {
            implementation: ADDRESS.test(entry.Implementation) ? entry.Implementation.toLowerCase() : undefined,
          },
        }
      : {}),
  };
}

/**
 * Etherscan's `SourceCode` as a standard-JSON input, in whichever of its three forms it comes:
 * - `{{ … }}`: the standard-JSON input itself, wrapped in one more pair of braces (a verification by standard JSON);
 * - `{ "path.sol": {"content": …}, … }`: the files of a multi-file verification, the settings in the entry's fields;
 * - anything else: one flat file, named after the contract (`Name.sol`, `Name.vy` for Vyper).
 * The settings Etherscan records beside the files (optimizer and runs, EVM version, a flat file's libraries) become
 * the input's `settings` where the source does not carry its own. Throws `MalformedStandardJsonError`.
 */
export function etherscanInput(entry: EtherscanSourceEntry): StandardJsonInput {
  const text = entry.SourceCode.trim();
  const what = `Etherscan ${entry.ContractName || 'contract'} SourceCode`;
  const vyper = entry.CompilerVersion.toLowerCase().startsWith('vyper');
  const language = vyper ? 'Vyper' : 'Solidity';
  if (text.startsWith('{{')) {
    if (!text.endsWith('}}')) throw new MalformedStandardJsonError(`${what}: "{{" without the closing "}}"`);
    return standardJsonOf(parseCompilerJson(text.slice(1, -1), what), what);
  }
  const settings: Record<string, unknown> = {
    optimizer: { enabled: entry.OptimizationUsed === '1', runs: Number(entry.Runs) || 200 },
    ...(entry.EVMVersion && entry.EVMVersion.toLowerCase() !== 'default'
      ? { evmVersion: entry.EVMVersion.toLowerCase() }
      : {}),
  };
  if (text.startsWith('{')) {
    const doc = parseCompilerJson(text, what);
    // Some multi-file answers are a whole standard-JSON input in single braces.
    if (doc && typeof doc === 'object' && 'sources' in doc) return standardJsonOf(doc, what);
    return standardJsonOf({ language, sources: doc, settings }, what);
  }
  const file = `${entry.ContractName || 'Contract'}.${vyper ? 'vy' : 'sol'}`;
  const libraries = librariesOf(entry.Library);
  return {
    language,
    sources: { [file]: { content: entry.SourceCode } },
    settings: { ...settings, ...(libraries ? { libraries: { [file]: libraries } } : {}) },
  };
}

/** `Name:0xaddress;Name2:0xaddress2` (Etherscan's `Library`) as solc's `libraries` of one file; undefined if none. */
function librariesOf(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of text.split(';')) {
    const [name, address] = part.split(':').map((s) => s.trim());
    if (name && address) out[name] = address.startsWith('0x') ? address : `0x${address}`;
  }
  return Object.keys(out).length ? out : undefined;
}
