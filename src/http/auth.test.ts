import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../core/errors.js';
import type { Clock } from '../core/time.js';
import { Metrics } from '../metrics/metrics.js';
import type { TokenRecord } from '../store/tokens.js';
import * as tokens from '../store/tokens.js';
import { type TokenTable, TokenVerifier, type TokenVerifierOptions } from './auth.js';

// Counts the constant-time comparisons, to show that every refusal runs the same digest path.
vi.mock('../store/tokens.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../store/tokens.js')>();
  return { ...original, sameDigest: vi.fn(original.sameDigest) };
});

class TestClock implements Clock {
  ms = Date.UTC(2026, 10, 20, 14, 0, 0);
  nowMs(): number {
    return this.ms;
  }
}

/** A token table in memory that counts its queries; `hold()` keeps lookups waiting until released. */
class FakeTable implements TokenTable {
  readonly rows = new Map<string, TokenRecord>();
  finds = 0;
  lists = 0;
  private gate: Promise<void> | undefined;

  async list(): Promise<TokenRecord[]> {
    this.lists++;
    return [...this.rows.values()].map((r) => ({ ...r }));
  }

  async find(id: string): Promise<TokenRecord | undefined> {
    this.finds++;
    const row = this.rows.get(id);
    const copy = row ? { ...row } : undefined;
    await this.gate;
    return copy;
  }

  async touch(): Promise<void> {}

  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => {
      release = resolve;
    });
    return () => {
      this.gate = undefined;
      release();
    };
  }

  /** Creates a token as `keys create` would (without telling any verifier). */
  create(fields: Partial<TokenRecord> = {}): { id: string; token: string } {
    const id = randomBytes(6).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    this.rows.set(id, {
      id,
      name: 'test',
      secret_hash: tokens.hashSecret(secret),
      created_at: 0,
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      rate_limit: 600,
      rate_window_seconds: 60,
      ...fields,
    });
    return { id, token: `ps_${id}_${secret}` };
  }
}

const randomToken = () => `ps_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;
const bearer = (token: string) => `Bearer ${token}`;

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

let table: FakeTable;
let clock: TestClock;
let metrics: Metrics;

async function verifier(options: Partial<TokenVerifierOptions> = {}): Promise<TokenVerifier> {
  const v = new TokenVerifier(table, clock, { lookupsPerSecond: 20, metrics, ...options });
  await v.reload();
  return v;
}

const counter = async (c: { get(): Promise<{ values: { value: number; labels: object }[] }> }, labels = {}) =>
  (await c.get()).values.find((v) => JSON.stringify(v.labels) === JSON.stringify(labels))?.value ?? 0;

beforeEach(() => {
  table = new FakeTable();
  clock = new TestClock();
  metrics = new Metrics({ defaults: false });
  vi.mocked(tokens.sameDigest).mockClear();
});

describe('TokenVerifier: tokens created after the last reload', () => {
  it('accepts a token created since the last reload on its first request, with one lookup', async () => {
    const v = await verifier();
    const { id, token } = table.create({ rate_limit: 5 });
    expect(await v.verify(bearer(token))).toEqual({ tokenId: id, rateLimit: 5, rateWindowMs: 60_000 });
    expect(table.finds).toBe(1);
    expect(await counter(metrics.tokenLookups, { result: 'found' })).toBe(1);
    // Remembered: the next requests neither look it up again nor need the digest (the hot path sees it too).
    await v.verify(bearer(token));
    expect(v.tryVerify(bearer(token))?.tokenId).toBe(id);
    // A wrong secret for the looked-up id is checked against its record, without another lookup.
    expect((await refusal(v.verify(bearer(`ps_${id}_${'A'.repeat(43)}`)))).code).toBe('invalid_token');
    expect(table.finds).toBe(1);
  });

  it('refuses revoked and expired tokens found by a lookup', async () => {
    const v = await verifier();
    const revoked = table.create({ revoked_at: 100 });
    const expired = table.create({ expires_at: Math.floor(clock.ms / 1000) });
    expect((await refusal(v.verify(bearer(revoked.token)))).code).toBe('revoked_token');
    expect((await refusal(v.verify(bearer(expired.token)))).code).toBe('expired_token');
  });

  it('drops a looked-up record at the next reload, so a revocation reaches it', async () => {
    const v = await verifier();
    const { id, token } = table.create();
    await v.verify(bearer(token));
    table.rows.get(id)!.revoked_at = 200;
    await v.reload();
    expect(v.tryVerify(bearer(token))).toBeUndefined();
    expect((await refusal(v.verify(bearer(token)))).code).toBe('revoked_token');
  });

  it('a reload that finishes during a lookup wins over the lookup’s older read', async () => {
    const v = await verifier();
    const { id, token } = table.create();
    const release = table.hold();
    const pending = refusal(v.verify(bearer(token)));
    await Promise.resolve();
    expect(table.finds).toBe(1); // the lookup read the record before it was revoked
    table.rows.get(id)!.revoked_at = 300;
    await v.reload();
    release();
    expect((await pending).code).toBe('revoked_token');
  });

  it('coalesces concurrent lookups of one id', async () => {
    const v = await verifier();
    const { id, token } = table.create();
    const release = table.hold();
    const known = Array.from({ length: 50 }, () => v.verify(bearer(token)));
    const unknownId = randomToken();
    const unknown = Array.from({ length: 50 }, () => refusal(v.verify(bearer(unknownId))));
    await Promise.resolve();
    release();
    expect((await Promise.all(known)).every((p) => p.tokenId === id)).toBe(true);
    expect((await Promise.all(unknown)).every((e) => e.code === 'invalid_token')).toBe(true);
    expect(table.finds).toBe(2);
  });
});

describe('TokenVerifier: unknown ids', () => {
  it('remembers ids found absent (the negative cache) until their time to live ends or the table is reloaded', async () => {
    const v = await verifier({ negativeTtlMs: 60_000 });
    const guess = randomToken();
    for (let i = 0; i < 5; i++) expect((await refusal(v.verify(bearer(guess)))).code).toBe('invalid_token');
    expect(table.finds).toBe(1);
    expect(await counter(metrics.tokenLookups, { result: 'absent' })).toBe(1);
    expect(await counter(metrics.tokenNegativeCacheHits)).toBe(4);
    clock.ms += 60_001;
    await refusal(v.verify(bearer(guess)));
    expect(table.finds).toBe(2);
    await v.reload();
    await refusal(v.verify(bearer(guess)));
    expect(table.finds).toBe(3);
  });

  it('keeps at most maxNegative ids, forgetting the oldest first', async () => {
    const v = await verifier({ maxNegative: 3 });
    const guesses = Array.from({ length: 4 }, randomToken);
    for (const g of guesses) await refusal(v.verify(bearer(g)));
    expect(table.finds).toBe(4);
    await refusal(v.verify(bearer(guesses[3]!)));
    expect(table.finds).toBe(4);
    await refusal(v.verify(bearer(guesses[0]!)));
    expect(table.finds).toBe(5);
  });

  it('a flood of random well-formed ids queries the store no more than the budget allows', async () => {
    const v = await verifier({ lookupsPerSecond: 20 });
    const flood = (n: number) => Promise.all(Array.from({ length: n }, () => refusal(v.verify(bearer(randomToken())))));
    const first = await flood(5000);
    expect(first.every((e) => e.code === 'invalid_token')).toBe(true);
    expect(table.finds).toBe(20);
    expect(await counter(metrics.tokenLookupBudgetRefusals)).toBe(4980);
    // The budget refills at 20 a second, holding at most one second's worth.
    clock.ms += 500;
    await flood(1000);
    expect(table.finds).toBe(30);
    clock.ms += 60_000;
    await flood(1000);
    expect(table.finds).toBe(50);
  });

  it('while the budget is spent, even a real new token is refused as invalid_token, and accepted once it refills', async () => {
    const v = await verifier({ lookupsPerSecond: 2 });
    await refusal(v.verify(bearer(randomToken())));
    await refusal(v.verify(bearer(randomToken())));
    const { token } = table.create();
    expect((await refusal(v.verify(bearer(token)))).code).toBe('invalid_token');
    expect(table.finds).toBe(2);
    clock.ms += 500;
    expect((await v.verify(bearer(token))).rateLimit).toBe(600);
  });

  it('lookupsPerSecond 0 never queries the store; the token works after the next reload', async () => {
    const v = await verifier({ lookupsPerSecond: 0 });
    const { token } = table.create();
    await refusal(v.verify(bearer(token)));
    expect(table.finds).toBe(0);
    await v.reload();
    expect((await v.verify(bearer(token))).rateLimit).toBe(600);
  });

  it('a failed lookup refuses the token, is not remembered as absent, and is logged', async () => {
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as never;
    const v = await verifier({ logger });
    const { token } = table.create();
    const find = table.find.bind(table);
    table.find = async () => {
      table.finds++;
      throw new Error('database is down');
    };
    expect((await refusal(v.verify(bearer(token)))).code).toBe('invalid_token');
    expect(warnings).toEqual(['token lookup failed; token refused']);
    expect(await counter(metrics.tokenLookups, { result: 'error' })).toBe(1);
    table.find = find;
    expect((await v.verify(bearer(token))).rateLimit).toBe(600);
  });
});

describe('TokenVerifier: a refusal says nothing about whether an id exists', () => {
  it('unknown id, known id with a wrong secret, spent budget and a non-token: same error, one digest comparison each', async () => {
    const v = await verifier({ lookupsPerSecond: 3 });
    const loaded = table.create();
    await v.reload();
    const created = table.create(); // since the reload: found by a lookup
    const wrong = (id: string) => bearer(`ps_${id}_${'B'.repeat(43)}`);
    const unknownId = randomBytes(6).toString('hex');
    // [header, store lookups it costs]: the first refusal of an id costs one lookup whether or not the id exists
    // (and whether or not it is in memory), a repeat within the negative cache's period none, and so does any
    // refusal once the budget (3) is spent.
    const cases: [string, number][] = [
      [wrong(unknownId), 1],
      [wrong(created.id), 1],
      [wrong(loaded.id), 1],
      [wrong(unknownId), 0],
      [wrong(created.id), 0],
      [wrong(loaded.id), 0],
      [wrong(randomBytes(6).toString('hex')), 0], // budget spent
      [wrong(table.create().id), 0], // budget spent
      [bearer('not-a-token'), 0],
    ];
    const errors: ApiError[] = [];
    for (const [header, lookups] of cases) {
      vi.mocked(tokens.sameDigest).mockClear();
      const before = table.finds;
      errors.push(await refusal(v.verify(header)));
      expect(tokens.sameDigest, header).toHaveBeenCalledTimes(1);
      expect(table.finds - before, header).toBe(lookups);
    }
    const shapes = errors.map((e) => ({ code: e.code, status: e.status, message: e.message, headers: e.headers }));
    for (const shape of shapes) expect(shape).toEqual(shapes[0]);
    expect(shapes[0]).toMatchObject({ code: 'invalid_token', status: 401 });
    // The right secret is still accepted, without a lookup, for both ids in memory.
    expect((await v.verify(bearer(loaded.token))).tokenId).toBe(loaded.id);
    expect((await v.verify(bearer(created.token))).tokenId).toBe(created.id);
    expect(table.finds).toBe(3);
  });
});
