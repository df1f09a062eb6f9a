import { ApiError } from '../core/errors.js';
import { type Clock, nowSeconds } from '../core/time.js';
import { hashSecret, sameDigest, TOKEN_PATTERN, type TokenRecord, type TokenRepository } from '../store/tokens.js';

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

/**
 * Verifies bearer tokens against an in-memory copy of the token table (a few hundred rows at most), reloaded
 * whenever the `tokens` counter moves, so a revocation takes effect within one sync interval. Records last use
 * in memory and flushes it in batches.
 */
export class TokenVerifier {
  private byId = new Map<string, TokenRecord>();
  /**
   * Tokens whose secret was already checked against this copy of the table, so a client's next request skips
   * the digest. Only a token that passed the constant-time comparison gets here: a guess always takes the full path.
   */
  private verified = new Map<string, TokenRecord>();
  private readonly uses = new Map<string, number>();

  constructor(
    private readonly tokens: TokenRepository,
    private readonly clock: Clock,
  ) {}

  async reload(): Promise<void> {
    const rows = await this.tokens.list();
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.verified = new Map();
  }

  verify(header: string | undefined): Principal {
    if (header === undefined || header === '') throw unauthorized('missing_token');
    const m = /^Bearer ([^\s]+)$/i.exec(header);
    if (!m) throw unauthorized('malformed_authorization');
    const token = m[1]!;
    let record = this.verified.get(token);
    if (!record) {
      const parsed = TOKEN_PATTERN.exec(token);
      const candidate = parsed ? this.byId.get(parsed[1]!) : undefined;
      const presented = hashSecret(parsed ? parsed[2]! : token);
      const matches = sameDigest(presented, candidate ? candidate.secret_hash : DUMMY_HASH);
      if (!candidate || !matches) throw unauthorized('invalid_token');
      record = candidate;
      if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
      this.verified.set(token, record);
    }
    const now = nowSeconds(this.clock);
    if (record.revoked_at !== null) throw unauthorized('revoked_token');
    if (record.expires_at !== null && record.expires_at <= now) throw unauthorized('expired_token');
    this.uses.set(record.id, now);
    return { tokenId: record.id, rateLimit: record.rate_limit, rateWindowMs: record.rate_window_seconds * 1000 };
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
    try {
      await this.tokens.touch(batch);
    } catch (err) {
      // Kept for the next flush (the store was busy): a newer use of the same token wins.
      for (const [id, at] of batch) if (!this.uses.has(id)) this.uses.set(id, at);
      throw err;
    }
  }
}
