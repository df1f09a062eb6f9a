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

/** A token whose secret passed the digest comparison: its record, its principal, the second it was last used. */
interface Verified {
  readonly record: TokenRecord;
  readonly principal: Principal;
  /** The last second recorded in `uses` (a token's last use is recorded at most once a second). */
  lastUse: number;
}

function verifiedOf(record: TokenRecord): Verified {
  return {
    record,
    principal: { tokenId: record.id, rateLimit: record.rate_limit, rateWindowMs: record.rate_window_seconds * 1000 },
    lastUse: -1,
  };
}

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
  /**
   * How long a refused id that was looked up is refused again without a lookup (the negative cache; default 60 s,
   * a reload forgets sooner).
   */
  readonly negativeTtlMs?: number;
  /** Most ids in the negative cache (default 10,000; the oldest is forgotten first). */
  readonly maxNegative?: number;
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
 * for one id share the lookup, ids looked up are then refused without another lookup for a while (the negative
 * cache, `negativeTtlMs`, until the next reload), and lookups are limited to `lookupsPerSecond` for the whole
 * process, so random ids cannot flood the store; when the budget is spent the token is refused as `invalid_token`
 * without a lookup.
 *
 * A refusal costs the same and says the same whether or not the id exists: the presented secret always goes
 * through one digest comparison (against a dummy digest when there is no record), the answer is `invalid_token`,
 * and a wrong secret for an id already in memory pays the lookup that an unknown id would (once per negative-cache
 * period, within the budget). Records last use in memory and flushes it in batches.
 */
export class TokenVerifier {
  private byId = new Map<string, TokenRecord>();
  /**
   * Tokens whose secret was already checked against this copy of the table, so a client's next request skips
   * the digest. Only a token that passed the constant-time comparison gets here: a guess always takes the full path.
   */
  private verified = new Map<string, Verified>();
  /**
   * The same entries by the Authorization header exactly as a client sent it (the hot path's lookup: no parsing,
   * no slicing); filled by `tryVerify`, forgotten with `verified`.
   */
  private byHeader = new Map<string, Verified>();
  /**
   * The negative cache: ids a refused request looked up (found absent, or present with another secret), with the
   * instant (ms) until which a request for them is refused without a lookup.
   */
  private negative = new Map<string, number>();
  /** Lookups in flight, by id. */
  private readonly pending = new Map<string, Promise<TokenRecord | undefined>>();
  private readonly uses = new Map<string, number>();
  private readonly budget: LookupBudget;
  private readonly negativeTtlMs: number;
  private readonly maxNegative: number;

  constructor(
    private readonly tokens: TokenTable,
    private readonly clock: Clock,
    private readonly options: TokenVerifierOptions,
  ) {
    this.budget = new LookupBudget(options.lookupsPerSecond, clock);
    this.negativeTtlMs = options.negativeTtlMs ?? 60_000;
    this.maxNegative = options.maxNegative ?? 10_000;
  }

  /** Replaces the copy of the table; forgets looked-up records, the negative cache and verified tokens. */
  async reload(): Promise<void> {
    const rows = await this.tokens.list();
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.verified = new Map();
    this.byHeader = new Map();
    this.negative = new Map();
  }

  async verify(header: string | undefined): Promise<Principal> {
    if (header === undefined || header === '') throw unauthorized('missing_token');
    const m = /^Bearer ([^\s]+)$/i.exec(header);
    if (!m) throw unauthorized('malformed_authorization');
    const token = m[1]!;
    const verified = this.verified.get(token) ?? (await this.check(token));
    const record = verified.record;
    const now = nowSeconds(this.clock);
    if (record.revoked_at !== null) throw unauthorized('revoked_token');
    if (record.expires_at !== null && record.expires_at <= now) throw unauthorized('expired_token');
    this.used(verified, now);
    return verified.principal;
  }

  /** Records a use of the token, at most once a second (the store keeps seconds; flushed in batches). */
  private used(verified: Verified, now: number): void {
    if (verified.lastUse === now) return;
    verified.lastUse = now;
    this.uses.set(verified.record.id, now);
  }

  /** The record whose secret the token carries; throws invalid_token for anything else. */
  private async check(token: string): Promise<Verified> {
    const parsed = TOKEN_PATTERN.exec(token);
    const id = parsed ? parsed[1]! : undefined;
    const inMemory = id === undefined ? undefined : this.byId.get(id);
    const candidate = inMemory ?? (id === undefined ? undefined : await this.lookUp(id));
    // The same digest work whether the record exists, was never there, or could not be looked up.
    const presented = hashSecret(parsed ? parsed[2]! : token);
    const matches = sameDigest(presented, candidate ? candidate.secret_hash : DUMMY_HASH);
    if (candidate && matches) {
      if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
      const verified = verifiedOf(candidate);
      this.verified.set(token, verified);
      return verified;
    }
    // A wrong secret for an id in memory pays the lookup an unknown id would, so the time says nothing of the id.
    if (inMemory) await this.lookUp(id!);
    throw unauthorized('invalid_token');
  }

  /**
   * Looks an id up in the store for a request that is not verified yet: shared by concurrent requests, skipped for
   * ids in the negative cache and when the budget is spent (undefined then). A found record joins the copy.
   */
  private lookUp(id: string): Promise<TokenRecord | undefined> {
    const inFlight = this.pending.get(id);
    if (inFlight) return inFlight;
    const negativeUntil = this.negative.get(id);
    if (negativeUntil !== undefined) {
      if (negativeUntil > this.clock.nowMs()) {
        this.options.metrics?.tokenNegativeCacheHits.inc();
        return Promise.resolve(undefined);
      }
      this.negative.delete(id);
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
          // Until the next reload, a refused request for this id does not look it up again (found or not).
          this.rememberNegative(id);
          // A reload that finished meanwhile holds the newer record (tokens are revoked, never deleted).
          const current = this.byId.get(id);
          if (current) return current;
          if (found) this.byId.set(id, found);
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

  private rememberNegative(id: string): void {
    if (this.negative.size >= this.maxNegative) {
      const oldest = this.negative.keys().next();
      if (!oldest.done) this.negative.delete(oldest.value);
    }
    this.negative.set(id, this.clock.nowMs() + this.negativeTtlMs);
  }

  /**
   * The principal of a token that already passed `verify` against this copy of the table and is still valid;
   * undefined for anything else (the caller then takes the full path, which says what is wrong). Never throws.
   */
  tryVerify(header: string | undefined, nowMs?: number): Principal | undefined {
    if (header === undefined) return undefined;
    let verified = this.byHeader.get(header);
    if (verified === undefined) {
      if (header.length < 8) return undefined;
      if (header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
      verified = this.verified.get(header.slice(7));
      if (verified === undefined) return undefined;
      if (this.byHeader.size >= MAX_VERIFIED) this.byHeader.clear();
      this.byHeader.set(header, verified);
    }
    const record = verified.record;
    if (record.revoked_at !== null) return undefined;
    const now = Math.floor((nowMs ?? this.clock.nowMs()) / 1000);
    if (record.expires_at !== null && record.expires_at <= now) return undefined;
    this.used(verified, now);
    return verified.principal;
  }

  /** Writes the last-use times collected since the previous flush. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const batch = new Map(this.uses);
    this.uses.clear();
    try {
      await this.tokens.touch(batch);
    } catch (err) {
      // Kept for the next flush (the store was busy): a newer use of the same token wins.
      for (const [id, at] of batch) if (!this.uses.has(id)) this.uses.set(id, at);
      throw err;
    }
  }
}
