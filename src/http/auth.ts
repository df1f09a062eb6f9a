import type { Logger } from 'pino';
import { ApiError } from '../core/errors.js';
import { type Clock, nowSeconds } from '../core/time.js';
import type { Metrics } from '../metrics/metrics.js';
import { hashSecret, sameDigest, TOKEN_PATTERN, type TokenRecord } from '../store/tokens.js';

/** The authenticated caller of a request. */
export interface Principal {
  readonly tokenId: string;
  readonly rateLimit: number;
  readonly rateWindowMs: number;
}

const CHALLENGE = { 'www-authenticate': 'Bearer realm="protoscore"' };
// Compared against when the token id is unknown, so that a hit and a miss cost the same.
const DUMMY_HASH = hashSecret('protoscore-no-such-token');
const MAX_VERIFIED = 10_000;

function unauthorized(
  code: 'missing_token' | 'malformed_authorization' | 'invalid_token' | 'revoked_token' | 'expired_token',
) {
  const messages = {
    missing_token: 'send the header Authorization: Bearer <token>',
    malformed_authorization: 'the Authorization header must be "Bearer <token>" with exactly one space',
    invalid_token: 'the token is not valid',
    revoked_token: 'the token was revoked',
    expired_token: 'the token has expired',
  } as const;
  return new ApiError(code, messages[code], CHALLENGE);
}

/** What the verifier reads and writes of the token table (`store/tokens.ts` `TokenRepository`). */
export interface TokenTable {
  list(): Promise<TokenRecord[]>;
  find(id: string): Promise<TokenRecord | undefined>;
  touch(uses: ReadonlyMap<string, number>): Promise<void>;
}

export interface TokenVerifierOptions {
  /**
   * Store lookups of token ids missing from memory, per second, across all requests of this process (a token
   * bucket holding one second's worth). 0: never look up; a new token then works after the next reload.
   */
  readonly lookupsPerSecond: number;
  readonly metrics?: Metrics;
  /** Where lookup failures are reported. */
  readonly logger?: Logger;
  /** How long an id found absent is refused without a lookup (default 60 s; a reload forgets it sooner). */
  readonly absentTtlMs?: number;
  /** Most ids remembered as absent (default 10,000; the oldest is forgotten first). */
  readonly maxAbsent?: number;
}

/** A token bucket of `perSecond` lookups, refilled continuously, holding at most one second's worth. */
class LookupBudget {
  private available: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.available = perSecond;
    this.at = clock.nowMs();
  }

  take(): boolean {
    const now = this.clock.nowMs();
    if (now > this.at) {
      this.available = Math.min(this.perSecond, this.available + ((now - this.at) * this.perSecond) / 1000);
      this.at = now;
    }
    if (this.available < 1) return false;
    this.available -= 1;
    return true;
  }
}

/**
 * Verifies bearer tokens against an in-memory copy of the token table (a few hundred rows at most), reloaded
 * whenever the `tokens` counter moves, so a revocation takes effect within one sync interval. A well-formed token
 * whose id is not in the copy (created since the last reload) is looked up in the store once: concurrent requests
 * for one id share the lookup, ids found absent are remembered for a while (`absentTtlMs`, until the next reload),
 * and lookups are limited to `lookupsPerSecond` for the whole process, so random ids cannot flood the store; when
 * the budget is spent the token is refused as `invalid_token` without a lookup. Whether the id exists or not, the
 * presented secret goes through the same digest comparison (against a dummy digest when there is no record) and
 * the refusal is the same `invalid_token`. Records last use in memory and flushes it in batches.
 */
export class TokenVerifier {
  private byId = new Map<string, TokenRecord>();
  /**
   * Tokens whose secret was already checked against this copy of the table, so a client's next request skips
   * the digest. Only a token that passed the constant-time comparison gets here: a guess always takes the full path.
   */
  private verified = new Map<string, TokenRecord>();
  /** Ids looked up and found absent, with the instant (ms) until which they are refused without a lookup. */
  private absent = new Map<string, number>();
  /** Lookups in flight, by id. */
  private readonly pending = new Map<string, Promise<TokenRecord | undefined>>();
  private readonly uses = new Map<string, number>();
  private readonly budget: LookupBudget;
  private readonly absentTtlMs: number;
  private readonly maxAbsent: number;

  constructor(
    private readonly tokens: TokenTable,
    private readonly clock: Clock,
    private readonly options: TokenVerifierOptions,
  ) {
    this.budget = new LookupBudget(options.lookupsPerSecond, clock);
    this.absentTtlMs = options.absentTtlMs ?? 60_000;
    this.maxAbsent = options.maxAbsent ?? 10_000;
  }

  /** Replaces the copy of the table; forgets looked-up records, ids found absent and verified tokens. */
  async reload(): Promise<void> {
    const rows = await this.tokens.list();
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.verified = new Map();
    this.absent = new Map();
  }

  async verify(header: string | undefined): Promise<Principal> {
    if (header === undefined || header === '') throw unauthorized('missing_token');
    const m = /^Bearer ([^\s]+)$/i.exec(header);
    if (!m) throw unauthorized('malformed_authorization');
    const token = m[1]!;
    const record = this.verified.get(token) ?? (await this.check(token));
    const now = nowSeconds(this.clock);
    if (record.revoked_at !== null) throw unauthorized('revoked_token');
    if (record.expires_at !== null && record.expires_at <= now) throw unauthorized('expired_token');
    this.uses.set(record.id, now);
    return { tokenId: record.id, rateLimit: record.rate_limit, rateWindowMs: record.rate_window_seconds * 1000 };
  }

  /** The record whose secret the token carries; throws invalid_token for anything else. */
  private async check(token: string): Promise<TokenRecord> {
    const parsed = TOKEN_PATTERN.exec(token);
    let candidate: TokenRecord | undefined;
    if (parsed) candidate = this.byId.get(parsed[1]!) ?? (await this.lookUp(parsed[1]!));
    // The same digest work whether the record exists, was never there, or could not be looked up.
    const presented = hashSecret(parsed ? parsed[2]! : token);
    const matches = sameDigest(presented, candidate ? candidate.secret_hash : DUMMY_HASH);
    if (!candidate || !matches) throw unauthorized('invalid_token');
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(token, candidate);
    return candidate;
  }

  /** Looks an id missing from the copy up in the store: at most once at a time, within the budget. */
  private lookUp(id: string): Promise<TokenRecord | undefined> {
    const inFlight = this.pending.get(id);
    if (inFlight) return inFlight;
    const absentUntil = this.absent.get(id);
    if (absentUntil !== undefined) {
      if (absentUntil > this.clock.nowMs()) {
        this.options.metrics?.tokenNegativeCacheHits.inc();
        return Promise.resolve(undefined);
      }
      this.absent.delete(id);
    }
    if (!this.budget.take()) {
      this.options.metrics?.tokenLookupBudgetRefusals.inc();
      return Promise.resolve(undefined);
    }
    const lookup = this.tokens
      .find(id)
      .then(
        (found) => {
          this.options.metrics?.tokenLookups.inc({ result: found ? 'found' : 'absent' });
          // A reload that finished meanwhile holds the newer record (tokens are revoked, never deleted).
          const current = this.byId.get(id);
          if (current) return current;
          if (found) this.byId.set(id, found);
          else this.rememberAbsent(id);
          return found;
        },
        (err: unknown) => {
          this.options.metrics?.tokenLookups.inc({ result: 'error' });
          this.options.logger?.warn({ err: (err as Error).message }, 'token lookup failed; token refused');
          return this.byId.get(id);
        },
      )
      .finally(() => this.pending.delete(id));
    this.pending.set(id, lookup);
    return lookup;
  }

  private rememberAbsent(id: string): void {
    if (this.absent.size >= this.maxAbsent) {
      const oldest = this.absent.keys().next();
      if (!oldest.done) this.absent.delete(oldest.value);
    }
    this.absent.set(id, this.clock.nowMs() + this.absentTtlMs);
  }

  /**
   * The principal of a token that already passed `verify` against this copy of the table and is still valid;
   * undefined for anything else (the caller then takes the full path, which says what is wrong). Never throws.
   */
  tryVerify(header: string | undefined): Principal | undefined {
    if (header === undefined || header.length < 8) return undefined;
    if (header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
    const record = this.verified.get(header.slice(7));
    if (!record || record.revoked_at !== null) return undefined;
    const now = nowSeconds(this.clock);
    if (record.expires_at !== null && record.expires_at <= now) return undefined;
    this.uses.set(record.id, now);
    return { tokenId: record.id, rateLimit: record.rate_limit, rateWindowMs: record.rate_window_seconds * 1000 };
  }

  /** Writes the last-use times collected since the previous flush. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const batch = new Map(this.uses);
    this.uses.clear();
    await this.tokens.touch(batch);
  }
}
