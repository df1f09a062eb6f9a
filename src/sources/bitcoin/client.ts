import { readFile } from 'node:fs/promises';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep as wait } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import {
  BitcoinAuthError,
  BitcoinError,
  BitcoinMethodUnavailableError,
  BitcoinRpcError,
  BitcoinSchemaError,
  rpcError,
} from './errors.js';

/**
 * The transport to a Bitcoin Core JSON-RPC server (or any provider speaking its RPC):
 * - HTTP Basic authentication with `rpcuser`/`rpcpassword`, or the node's cookie file (`<datadir>/.cookie`, one line
 *   `__cookie__:<secret>`): the file is read before the first call and again after a 401, since the node writes a
 *   new secret at every restart; a second 401 is a `BitcoinAuthError` (not retried);
 * - requests in JSON-RPC 2.0 (`"jsonrpc": "2.0"`), replies accepted in both forms: Bitcoin Core ≥ 28 answers 2.0
 *   requests with `result` or `error` and HTTP 200; older nodes (and 1.0 requests) answer with both `result` and
 *   `error` and HTTP 500 (404 for an unknown method) on error;
 * - retries on the shared policy (`core/retry.ts`) for what can pass: network errors, timeouts, HTTP 5xx without an
 *   RPC error, 503 (the node's work queue is full), 429 (a provider's limit, after `Retry-After`), and the RPC
 *   errors of a node still starting (-28 warming up, -9/-10); everything else fails at once, typed (`errors.ts`).
 * Credentials are never logged nor put into messages (a URL's user info is taken out of it and used as credentials).
 */
export interface BitcoinRpcOptions {
  /** The RPC URL (`http://host:8332/`, a wallet path is not needed); user info in it is used as credentials. */
  readonly url: string;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** The node's cookie file; used when no user is given. */
  readonly cookieFile?: string | undefined;
  /** The request form: `2.0` (default) or `1.0` (legacy nodes answer either the legacy way). */
  readonly jsonrpc?: '1.0' | '2.0';
  readonly maxRetries?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly timeoutMs?: number;
  readonly maxConcurrency?: number;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  readonly clock?: Clock;
  readonly log?: EvmLogger;
}

export interface BitcoinRpcStats {
  requests: number;
  retries: number;
  cookieReads: number;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export class BitcoinRpcClient {
  readonly stats: BitcoinRpcStats = { requests: 0, retries: 0, cookieReads: 0 };
  /** The URL without credentials (for messages). */
  readonly url: string;
  private readonly endpoint: string;
  private readonly slots: Semaphore;
  private readonly sleep: SleepFn;
  private readonly clock: Clock;
  private readonly staticAuth: string | undefined;
  private cookieAuth: string | undefined;
  private nextId = 1;

  constructor(private readonly options: BitcoinRpcOptions) {
    const parsed = new URL(options.url);
    const urlUser = decodeURIComponent(parsed.username);
    const urlPassword = decodeURIComponent(parsed.password);
    parsed.username = '';
    parsed.password = '';
    this.endpoint = parsed.toString();
    this.url = this.endpoint;
    const user = options.user ?? (urlUser || undefined);
    const password = options.password ?? (urlUser ? urlPassword : undefined);
    this.staticAuth = user !== undefined ? basic(`${user}:${password ?? ''}`) : undefined;
    if (this.staticAuth === undefined && options.cookieFile === undefined) {
      throw new BitcoinError(`bitcoin RPC at ${this.url}: no credentials (user and password, or a cookie file)`, false);
    }
    this.slots = new Semaphore(options.maxConcurrency ?? 4);
    this.sleep = options.sleep ?? ((ms) => wait(ms));
    this.clock = options.clock ?? systemClock;
  }

  private async cookie(reread: boolean): Promise<string> {
    if (this.cookieAuth !== undefined && !reread) return this.cookieAuth;
    const file = this.options.cookieFile!;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new BitcoinError(
        `bitcoin RPC: cannot read the cookie file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        true,
      );
    }
    this.stats.cookieReads++;
    const line = text.trim();
    if (!/^[^:\s]+:\S+$/.test(line)) throw new BitcoinError(`bitcoin RPC: the cookie file ${file} is malformed`, false);
    this.cookieAuth = basic(line);
    return this.cookieAuth;
  }

  /** Calls `method` and returns its `result` (unvalidated: `source.ts` checks it against the method's schema). */
  async call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const maxRetries = this.options.maxRetries ?? 4;
    let failures = 0;
    let cookieRetried = false;
    for (;;) {
      const auth = this.staticAuth ?? (await this.cookie(false));
      const id = this.nextId++;
      const body = JSON.stringify(
        this.options.jsonrpc === '1.0'
          ? { jsonrpc: '1.0', id, method, params }
          : { jsonrpc: '2.0', id, method, params },
      );
      let reply: Reply | undefined;
      let networkError: unknown;
      try {
        reply = await this.slots.run(() => this.post(body, auth));
      } catch (err) {
        networkError = err;
      }
      let retryAfterMs: number | undefined;
      if (reply) {
        if (reply.status === 401) {
          if (this.staticAuth === undefined && !cookieRetried) {
            // The node rewrote its cookie (a restart): read it again, once.
            cookieRetried = true;
            await this.cookie(true);
            continue;
          }
          throw new BitcoinAuthError(this.url, this.staticAuth === undefined ? 'cookie file' : 'user and password');
        }
        if (reply.status === 403) {
          throw new BitcoinMethodUnavailableError(method, 403, `HTTP 403: the server does not allow ${method}`);
        }
        const parsed = parseJson(reply.text);
        const error = parsed?.error;
        if (error !== undefined && error !== null) {
          const code = typeof error.code === 'number' ? error.code : 0;
          const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
          const typed = rpcError(method, code, message, blockParam(method, params));
          if (!typed.retryable) throw typed;
          networkError = typed;
        } else if (reply.status === 200 && parsed && 'result' in parsed) {
          return parsed.result;
        } else if (reply.status === 200) {
          throw new BitcoinSchemaError(method, '', 'the reply is not a JSON-RPC response');
        } else if (reply.status === 429 || reply.status === 408 || reply.status >= 500) {
          retryAfterMs = parseRetryAfter(reply.headers.get('retry-after'), this.clock.nowMs());
          networkError = new BitcoinError(`bitcoin RPC ${method}: HTTP ${reply.status}`, true);
        } else {
          throw new BitcoinRpcError(method, reply.status, `HTTP ${reply.status}: ${reply.text.slice(0, 200)}`);
        }
      }
      if (failures >= maxRetries) {
        const message = (networkError as Error | undefined)?.message ?? 'failed';
        throw new BitcoinError(
          `bitcoin RPC ${method} at ${this.url}: failed after ${failures + 1} attempts: ${message}`,
          true,
          {
            cause: networkError,
          },
        );
      }
      const delay =
        retryAfterMs ??
        backoffDelay(failures, {
          baseMs: this.options.baseDelayMs ?? 500,
          maxMs: this.options.maxDelayMs ?? 15_000,
          ...(this.options.random ? { random: this.options.random } : {}),
        });
      failures++;
      this.stats.retries++;
      this.options.log?.[failures <= 2 ? 'debug' : 'warn'](
        { source: 'bitcoin', method, attempt: failures, delayMs: delay },
        `bitcoin RPC retry: ${(networkError as Error | undefined)?.message ?? ''}`,
      );
      await this.sleep(delay);
    }
  }

  private async post(body: string, auth: string): Promise<Reply> {
    this.stats.requests++;
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
}

function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

function parseJson(
  text: string,
): { result?: unknown; error?: { code?: unknown; message?: unknown } | null } | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as never) : undefined;
  } catch {
    return undefined;
  }
}

/** The block a call names (hash or height), for `BitcoinPrunedError`. */
function blockParam(method: string, params: readonly unknown[]): string | number | undefined {
  if (['getblock', 'getblockstats', 'getblockheader'].includes(method)) {
    const p = params[0];
    return typeof p === 'string' || typeof p === 'number' ? p : undefined;
  }
  return undefined;
}
