import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { bumpCounter } from './counters.js';
import type { ApiTokenTable, Database } from './schema.js';

/**
 * API tokens. A token is `ps_<id>_<secret>`: the id (12 hex) finds the record, the secret (32 random bytes,
 * base64url) proves possession. Only sha256(secret) is stored; the token is shown once, at creation.
 */
export const TOKEN_PATTERN = /^ps_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export type TokenRecord = ApiTokenTable;

export interface NewToken {
  readonly name: string;
  readonly expiresAt: number | null;
  readonly rateLimit: number;
  readonly rateWindowSeconds: number;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export class TokenRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: NewToken, nowSeconds: number): Promise<{ id: string; token: string }> {
    return this.db.transaction().execute(async (trx) => {
      const made = await insertToken(trx, input, nowSeconds);
      await bumpCounter(trx, 'tokens');
      return made;
    });
  }

  /**
   * Replaces an active token with a new one of the same name, rate limit and lifetime (counted from now), and
   * revokes it, in one transaction; undefined when no active token has that id.
   */
  async rotate(
    id: string,
    nowSeconds: number,
  ): Promise<{ id: string; token: string; expiresAt: number | null } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!old || (old.expires_at !== null && old.expires_at <= nowSeconds)) return undefined;
      const expiresAt = old.expires_at === null ? null : nowSeconds + (old.expires_at - old.created_at);
      const made = await insertToken(
        trx,
        { name: old.name, expiresAt, rateLimit: old.rate_limit, rateWindowSeconds: old.rate_window_seconds },
        nowSeconds,
      );
      await trx.updateTable('api_tokens').set({ revoked_at: nowSeconds }).where('id', '=', id).execute();
      await bumpCounter(trx, 'tokens');
      return { ...made, expiresAt };
    });
  }

  list(): Promise<TokenRecord[]> {
    return this.db.selectFrom('api_tokens').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  /** The record of one token id (primary-key lookup), or undefined when there is none. */
  find(id: string): Promise<TokenRecord | undefined> {
    return this.db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Revokes a token; false when no such token exists (or it was revoked already). */
  async revoke(id: string, nowSeconds: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('api_tokens')
        .set({ revoked_at: nowSeconds })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      await bumpCounter(trx, 'tokens');
      return true;
    });
  }

  /** Records last use; does not bump the tokens counter (it changes nothing a verifier needs). */
  async touch(uses: ReadonlyMap<string, number>): Promise<void> {
    if (uses.size === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const [id, at] of uses) {
        await trx.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
      }
    });
  }
}

async function insertToken(
  db: Kysely<Database>,
  input: NewToken,
  nowSeconds: number,
): Promise<{ id: string; token: string }> {
  const name = input.name.trim();
  if (!/^[\w .@:-]{1,64}$/.test(name)) throw new Error('token name: 1-64 letters, digits, spaces or . _ @ : -');
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await db
    .insertInto('api_tokens')
    .values({
      id,
      name,
      secret_hash: hashSecret(secret),
      created_at: nowSeconds,
      expires_at: input.expiresAt,
      revoked_at: null,
      last_used_at: null,
      rate_limit: input.rateLimit,
      rate_window_seconds: input.rateWindowSeconds,
    })
    .execute();
  return { id, token: `ps_${id}_${secret}` };
}
