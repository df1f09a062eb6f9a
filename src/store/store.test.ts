import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../test/helpers.js';
import { readCheckpoint, writeCheckpoint } from './checkpoints.js';
import { readCounters } from './counters.js';
import { type DatasetDocument, DatasetRepository } from './datasets.js';
import type { Dialect, Store } from './db.js';
import { JobRepository } from './jobs.js';
import { hashSecret, TOKEN_PATTERN, TokenRepository } from './tokens.js';

/** The repositories run on SQLite always, and on PostgreSQL when a test database is configured. */
const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

if (!PG_URL) it.skip('PostgreSQL store tests skipped: set TEST_DATABASE_URL or DATABASE_URL to run them', () => {});

/** Same key as in test/jobs-leases.test.ts: PostgreSQL test files that migrate schemas take turns (see below). */
const PG_TEST_LOCK = 7_310_512_001;

const NOW = 1_795_000_000; // Unix seconds

function doc(path: string, data: unknown = { path }, asOf = NOW - 60, freshFor = 3600): DatasetDocument {
  return { path, data, asOf, source: 'test', freshFor };
}

describe.each(dialects)('store on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let firstMigration: string[];
  let lock: pg.Client | undefined;

  if (dialect === 'postgres') {
    beforeAll(async () => {
      // Test files that create PostgreSQL schemas take turns: it keeps their load on a 2-core machine apart. (It was
      // first a guard against Kysely's Migrator failing when another schema vanished mid-introspection; the store now
      // introspects only its own schema, see src/store/introspector.ts.)
      lock = new pg.Client({ connectionString: PG_URL });
      await lock.connect();
      await lock.query('select pg_advisory_lock($1)', [PG_TEST_LOCK]);
    });
    afterAll(async () => {
      await lock?.end();
    });
  }

  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    firstMigration = await store.migrate();
  });

  afterEach(async () => {
    await cleanup();
  });

  describe('migrations', () => {
    it('the first migrate applies every migration in order; later ones apply nothing', async () => {
      expect(firstMigration).toEqual([
        '0001_foundation',
        '0002_evm_dex',
        '0003_oracles',
        '0004_development',
        '0005_lending',
        '0006_liquid_staking',
        '0007_blockchain',
        '0008_blockchain_bitcoin',
        '0009_stablecoin',
        '0010_community',
        '0011_development_missing_fields',
        '0015_blockchain_bitcoin_addresses',
        '0015_blockchain_evm_addresses',
        '0017_dex_time_indexes',
        '0018_derivatives_gmx',
        '0019_derivatives_dydx',
        '0020_derivatives_synthetix',
        '0021_tokenomics',
        '0022_tokenomics_market',
      ]);
      expect(await store.migrate()).toEqual([]);
      expect(await store.migrate()).toEqual([]);
      // The seeded counters were not inserted twice.
      expect(await readCounters(store.db)).toEqual({ datasets: 0, tokens: 0 });
    });
  });

  describe('TokenRepository', () => {
    const input = { name: 'ci bot', expiresAt: null, rateLimit: 600, rateWindowSeconds: 60 };

    it('creates tokens of the documented shape and never stores the secret', async () => {
      const tokens = new TokenRepository(store.db);
      const { id, token } = await tokens.create(input, NOW);
      const m = TOKEN_PATTERN.exec(token);
      expect(m).not.toBeNull();
      expect(m![1]).toBe(id);
      const secret = m![2]!;

      const rows = await tokens.list();
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row).toMatchObject({
        id,
        name: 'ci bot',
        created_at: NOW,
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        rate_limit: 600,
        rate_window_seconds: 60,
      });
      expect(row.secret_hash).toBe(hashSecret(secret));
      // No part of the secret (no 8-character window of it) appears anywhere in the stored row.
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(token);
      for (let i = 0; i + 8 <= secret.length; i++) expect(stored).not.toContain(secret.slice(i, i + 8));
    });

    it('trims names and rejects bad ones', async () => {
      const tokens = new TokenRepository(store.db);
      await tokens.create({ ...input, name: '  padded  ' }, NOW);
      expect((await tokens.list())[0]!.name).toBe('padded');
      await expect(tokens.create({ ...input, name: '' }, NOW)).rejects.toThrow(/token name/);
      await expect(tokens.create({ ...input, name: 'x'.repeat(65) }, NOW)).rejects.toThrow(/token name/);
      await expect(tokens.create({ ...input, name: 'bad/name' }, NOW)).rejects.toThrow(/token name/);
      expect(await tokens.list()).toHaveLength(1);
    });

    it('lists in creation order, revokes once and bumps the tokens counter on every change', async () => {
      const tokens = new TokenRepository(store.db);
      const a = await tokens.create({ ...input, name: 'a' }, NOW);
      const b = await tokens.create({ ...input, name: 'b', expiresAt: NOW + 86_400 }, NOW + 1);
      expect(a.token).not.toBe(b.token);
      expect((await readCounters(store.db)).tokens).toBe(2);
      expect((await tokens.list()).map((t) => t.name)).toEqual(['a', 'b']);
      expect((await tokens.list())[1]!.expires_at).toBe(NOW + 86_400);

      expect(await tokens.revoke(a.id, NOW + 10)).toBe(true);
      expect((await readCounters(store.db)).tokens).toBe(3);
      expect(await tokens.revoke(a.id, NOW + 20)).toBe(false);
      expect(await tokens.revoke('000000000000', NOW + 20)).toBe(false);
      expect((await readCounters(store.db)).tokens).toBe(3);

      const [ra, rb] = await tokens.list();
      expect(ra!.revoked_at).toBe(NOW + 10); // the second revoke did not move it
      expect(rb!.revoked_at).toBeNull();
    });

    it('finds one token by id, revoked or not; undefined for an unknown id', async () => {
      const tokens = new TokenRepository(store.db);
      const a = await tokens.create({ ...input, name: 'a', expiresAt: NOW + 60 }, NOW);
      const b = await tokens.create({ ...input, name: 'b' }, NOW);
      await tokens.revoke(b.id, NOW + 1);
      const rows = await tokens.list();
      expect(await tokens.find(a.id)).toEqual(rows.find((r) => r.id === a.id));
      expect(await tokens.find(b.id)).toMatchObject({ id: b.id, revoked_at: NOW + 1 });
      expect(await tokens.find('ffffffffffff')).toBeUndefined();
    });

    it('touch records last use without bumping the counter', async () => {
      const tokens = new TokenRepository(store.db);
      const a = await tokens.create({ ...input, name: 'a' }, NOW);
      const b = await tokens.create({ ...input, name: 'b' }, NOW);
      const before = await readCounters(store.db);
      await tokens.touch(new Map());
      await tokens.touch(
        new Map([
          [a.id, NOW + 5],
          ['ffffffffffff', NOW + 6], // unknown ids are ignored
        ]),
      );
      await tokens.touch(new Map([[a.id, NOW + 7]]));
      const rows = await tokens.list();
      expect(rows.find((r) => r.id === a.id)!.last_used_at).toBe(NOW + 7);
      expect(rows.find((r) => r.id === b.id)!.last_used_at).toBeNull();
      expect(await readCounters(store.db)).toEqual(before);
    });
  });

  describe('DatasetRepository', () => {
    async function pathsOf(computation: string): Promise<string[]> {
      const rows = await store.db
        .selectFrom('datasets')
        .select('path')
        .where('computation', '=', computation)
        .orderBy('path')
        .execute();
      return rows.map((r) => r.path);
    }

    it('prunes records of publications older than the cutoff, keeping each computation newest and every document', async () => {
      const repo = new DatasetRepository(store.db);
      const day = 86_400;
      const at = (computation: string, computedAt: number) =>
        repo.publish({ computation, area: 'dex', computedAt, documents: [doc(`/${computation}`)] });
      await at('a', NOW - 20 * day);
      await at('a', NOW - 19 * day);
      const aNewest = await at('a', NOW);
      const bOnly = await at('b', NOW - 30 * day);
      expect(await repo.prunePublications(NOW - 14 * day)).toBe(2);
      const left = await store.db
        .selectFrom('publications')
        .select(['computation', 'version'])
        .orderBy('version')
        .execute();
      expect(left.map((r) => [r.computation, Number(r.version)])).toEqual([
        ['a', aNewest],
        ['b', bOnly],
      ]);
      expect(await repo.latestPublication('b')).toMatchObject({ version: bOnly });
      expect(await repo.get('/b')).toBeDefined();
      expect(await repo.prunePublications(NOW - 14 * day)).toBe(0);
    });

    it('a publication replaces the whole set of its computation under a new version', async () => {
      const repo = new DatasetRepository(store.db);
      const v1 = await repo.publish({
        computation: 'a',
        area: 'dex',
        computedAt: NOW,
        documents: [doc('/p1', { n: 1 }), doc('/p2', { n: 2 }, NOW - 30, 600)],
      });
      expect(await pathsOf('a')).toEqual(['/p1', '/p2']);
      const p2 = await repo.get('/p2');
      expect(p2).toMatchObject({
        path: '/p2',
        area: 'dex',
        computation: 'a',
        as_of: NOW - 30,
        computed_at: NOW,
        fresh_for: 600,
        version: v1,
      });
      expect(JSON.parse(p2!.payload)).toEqual({ n: 2 });
      expect(JSON.parse(p2!.meta)).toEqual({ source: 'test' });

      const v2 = await repo.publish({
        computation: 'a',
        area: 'dex',
        computedAt: NOW + 60,
        documents: [doc('/p2', { n: 22 }), { ...doc('/p3'), methodology: 'm', meta: { unit: 'usd' } }],
      });
      expect(v2).toBeGreaterThan(v1);
      expect(await pathsOf('a')).toEqual(['/p2', '/p3']);
      expect(await repo.get('/p1')).toBeUndefined();
      const p2b = await repo.get('/p2');
      expect(JSON.parse(p2b!.payload)).toEqual({ n: 22 });
      expect(p2b!.version).toBe(v2);
      expect(JSON.parse((await repo.get('/p3'))!.meta)).toEqual({ unit: 'usd', methodology: 'm', source: 'test' });
      expect((await readCounters(store.db)).datasets).toBe(v2);

      const pubs = await store.db.selectFrom('publications').selectAll().orderBy('version').execute();
      expect(pubs.map((p) => [p.version, p.computation, p.documents])).toEqual([
        [v1, 'a', 2],
        [v2, 'a', 2],
      ]);
    });

    it('a publication naming a path twice throws and leaves the previous set intact', async () => {
      const repo = new DatasetRepository(store.db);
      const v1 = await repo.publish({ computation: 'a', area: 'dex', computedAt: NOW, documents: [doc('/p1')] });
      await expect(
        repo.publish({ computation: 'a', area: 'dex', computedAt: NOW + 1, documents: [doc('/p2'), doc('/p2')] }),
      ).rejects.toThrow(/names \/p2 twice/);
      expect(await pathsOf('a')).toEqual(['/p1']);
      expect((await repo.get('/p1'))!.version).toBe(v1);
      expect((await readCounters(store.db)).datasets).toBe(v1);
    });

    it('a publication failing in a late insert chunk rolls back entirely', async () => {
      const repo = new DatasetRepository(store.db);
      const v1 = await repo.publish({
        computation: 'a',
        area: 'dex',
        computedAt: NOW,
        documents: [doc('/old1'), doc('/old2')],
      });
      // 1,000 documents; the 701st has no payload (JSON.stringify(undefined)), so its chunk violates NOT NULL
      // after three chunks were already inserted in the transaction.
      const documents = Array.from({ length: 1000 }, (_, i) => ({
        ...doc(`/big/${i}`),
        data: i === 700 ? undefined : i,
      }));
      await expect(repo.publish({ computation: 'a', area: 'dex', computedAt: NOW + 1, documents })).rejects.toThrow();
      expect(await pathsOf('a')).toEqual(['/old1', '/old2']);
      expect((await readCounters(store.db)).datasets).toBe(v1);
      const pubs = await store.db.selectFrom('publications').select('version').execute();
      expect(pubs.map((p) => p.version)).toEqual([v1]);
    });

    it("two computations don't delete each other's documents", async () => {
      const repo = new DatasetRepository(store.db);
      await repo.publish({ computation: 'a', area: 'dex', computedAt: NOW, documents: [doc('/a1'), doc('/a2')] });
      await repo.publish({ computation: 'b', area: 'lending', computedAt: NOW, documents: [doc('/b1')] });
      await repo.publish({ computation: 'a', area: 'dex', computedAt: NOW + 1, documents: [doc('/a3')] });
      expect(await pathsOf('a')).toEqual(['/a3']);
      expect(await pathsOf('b')).toEqual(['/b1']);
      // An empty publication empties its own computation only.
      await repo.publish({ computation: 'b', area: 'lending', computedAt: NOW + 2, documents: [] });
      expect(await pathsOf('b')).toEqual([]);
      expect(await pathsOf('a')).toEqual(['/a3']);
    });

    it('publishes 1,000 documents at once (several insert chunks)', async () => {
      const repo = new DatasetRepository(store.db);
      const documents = Array.from({ length: 1000 }, (_, i) => doc(`/big/${String(i).padStart(4, '0')}`, { i }));
      const v1 = await repo.publish({ computation: 'big', area: 'dex', computedAt: NOW, documents });
      const count = await store.db
        .selectFrom('datasets')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('computation', '=', 'big')
        .where('version', '=', v1)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1000);
      expect(JSON.parse((await repo.get('/big/0999'))!.payload)).toEqual({ i: 999 });

      // Replacing it with another 1,000 (half overlapping) leaves exactly the new set.
      const next = Array.from({ length: 1000 }, (_, i) => doc(`/big/${String(i + 500).padStart(4, '0')}`, { i }));
      const v2 = await repo.publish({ computation: 'big', area: 'dex', computedAt: NOW + 1, documents: next });
      const paths = await pathsOf('big');
      expect(paths).toHaveLength(1000);
      expect(paths[0]).toBe('/big/0500');
      expect(paths[999]).toBe('/big/1499');
      expect((await repo.get('/big/0600'))!.version).toBe(v2);
      expect((await repo.summary())[0]).toMatchObject({ computation: 'big', version: v2, documents: 1000 });
    });

    it('summary() reports the latest publication and freshness per computation', async () => {
      const repo = new DatasetRepository(store.db);
      expect(await repo.summary()).toEqual([]);
      await repo.publish({ computation: 'z', area: 'dex', computedAt: NOW - 100, documents: [doc('/z1')] });
      const vz = await repo.publish({
        computation: 'z',
        area: 'dex',
        computedAt: NOW,
        documents: [doc('/z1', 1, NOW - 500, 1000), doc('/z2', 2, NOW - 100, 300), doc('/z3', 3, NOW - 50, 3600)],
      });
      const va = await repo.publish({ computation: 'a', area: 'lending', computedAt: NOW + 5, documents: [] });
      expect(await repo.summary()).toEqual([
        {
          computation: 'a',
          area: 'lending',
          version: va,
          published_at: NOW + 5,
          documents: 0,
          oldest_as_of: null,
          newest_as_of: null,
          min_fresh_until: null,
          min_fresh_for: null,
        },
        {
          computation: 'z',
          area: 'dex',
          version: vz,
          published_at: NOW,
          documents: 3,
          oldest_as_of: NOW - 500,
          newest_as_of: NOW - 50,
          min_fresh_until: NOW - 100 + 300,
          min_fresh_for: 300,
        },
      ]);
      const pub = await store.db.selectFrom('publications').selectAll().where('version', '=', vz).executeTakeFirst();
      expect(pub!.as_of).toBe(NOW - 50);
    });
    it('publicationHistory() buckets publications since a time and gives the newest as_of before it', async () => {
      const repo = new DatasetRepository(store.db);
      const since = NOW - 3600;
      const publish = (computation: string, at: number, asOf: number) =>
        repo.publish({ computation, area: 'dex', computedAt: at, documents: [doc(`/${computation}`, at, asOf)] });
      expect(await repo.publicationHistory(['a'], since, 600, 100)).toEqual({
        before: [],
        buckets: [],
        truncated: false,
      });
      await publish('a', since - 700, since - 800);
      await publish('a', since - 100, since - 150);
      await publish('a', since + 10, since);
      await publish('a', since + 599, since + 500);
      await publish('a', since + 600, since + 550);
      await publish('b', since + 3000, since + 2900);
      await publish('c', since - 50, since - 60);
      expect(await repo.publicationHistory(['a', 'b', 'c'], since, 600, 100)).toEqual({
        before: [
          { computation: 'a', as_of: since - 150 },
          { computation: 'c', as_of: since - 60 },
        ],
        buckets: [
          { computation: 'b', bucket: 5, publications: 1, as_of: since + 2900 },
          { computation: 'a', bucket: 1, publications: 1, as_of: since + 550 },
          { computation: 'a', bucket: 0, publications: 2, as_of: since + 500 },
        ],
        truncated: false,
      });
      // Only the newest publications of each computation are read; when they all fall in the window, it says so.
      const cut = await repo.publicationHistory(['a'], since, 600, 2);
      expect(cut.buckets.map((b) => [b.bucket, b.publications])).toEqual([
        [1, 1],
        [0, 1],
      ]);
      expect(cut.truncated).toBe(true);
      expect((await repo.publicationHistory(['a'], since, 600, 4)).truncated).toBe(false);
      await expect(repo.publicationHistory(['a'], since, 0, 10)).rejects.toThrow(/bucket/);
    });
  });

  describe('checkpoints', () => {
    it('read, write and overwrite', async () => {
      expect(await readCheckpoint(store.db, 'src:eth')).toBeUndefined();
      await writeCheckpoint(store.db, 'src:eth', { block: 100 }, NOW);
      expect(await readCheckpoint(store.db, 'src:eth')).toEqual({ block: 100 });
      await writeCheckpoint(store.db, 'src:eth', { block: 200, hash: '0xab' }, NOW + 1);
      expect(await readCheckpoint(store.db, 'src:eth')).toEqual({ block: 200, hash: '0xab' });
      const row = await store.db.selectFrom('checkpoints').selectAll().executeTakeFirstOrThrow();
      expect(row.updated_at).toBe(NOW + 1);
    });

    it('a write inside a rolled-back transaction leaves the old value', async () => {
      await writeCheckpoint(store.db, 'k', { block: 1 }, NOW);
      await expect(
        store.db.transaction().execute(async (trx) => {
          await writeCheckpoint(trx, 'k', { block: 2 }, NOW + 1);
          await writeCheckpoint(trx, 'new', 'x', NOW + 1);
          expect(await readCheckpoint(trx, 'k')).toEqual({ block: 2 });
          throw new Error('crash after the facts');
        }),
      ).rejects.toThrow('crash after the facts');
      expect(await readCheckpoint(store.db, 'k')).toEqual({ block: 1 });
      expect(await readCheckpoint(store.db, 'new')).toBeUndefined();

      await store.db.transaction().execute(async (trx) => {
        await writeCheckpoint(trx, 'k', { block: 3 }, NOW + 2);
      });
      expect(await readCheckpoint(store.db, 'k')).toEqual({ block: 3 });
    });
  });

  describe('JobRepository', () => {
    const T = 1_795_000_000_000; // Unix milliseconds

    it('lease semantics: acquire, refuse, re-acquire, expire, renew, release', async () => {
      const jobs = new JobRepository(store.db);
      expect(await jobs.acquireLease('j', 'A', T, 1000)).toBe(true);
      expect(await jobs.leases()).toEqual([{ job: 'j', owner: 'A', expires_at_ms: T + 1000 }]);
      // Another owner is refused while the lease is unexpired (also at the exact expiry instant).
      expect(await jobs.acquireLease('j', 'B', T + 500, 1000)).toBe(false);
      expect(await jobs.acquireLease('j', 'B', T + 1000, 1000)).toBe(false);
      expect(await jobs.leases()).toEqual([{ job: 'j', owner: 'A', expires_at_ms: T + 1000 }]);
      // The same owner re-acquires (and extends).
      expect(await jobs.acquireLease('j', 'A', T + 600, 1000)).toBe(true);
      expect(await jobs.leases()).toEqual([{ job: 'j', owner: 'A', expires_at_ms: T + 1600 }]);
      // Other jobs have their own leases.
      expect(await jobs.acquireLease('k', 'B', T + 600, 1000)).toBe(true);
      // After expiry another owner takes it.
      expect(await jobs.acquireLease('j', 'B', T + 1601, 1000)).toBe(true);
      expect((await jobs.leases()).find((l) => l.job === 'j')).toEqual({
        job: 'j',
        owner: 'B',
        expires_at_ms: T + 2601,
      });
      // The old owner can neither renew nor take it back, nor release it.
      expect(await jobs.renewLease('j', 'A', T + 1700, 1000)).toBe(false);
      expect(await jobs.acquireLease('j', 'A', T + 1700, 1000)).toBe(false);
      await jobs.releaseLease('j', 'A');
      expect((await jobs.leases()).find((l) => l.job === 'j')?.owner).toBe('B');
      // The owner renews.
      expect(await jobs.renewLease('j', 'B', T + 2000, 1000)).toBe(true);
      expect((await jobs.leases()).find((l) => l.job === 'j')?.expires_at_ms).toBe(T + 3000);
      // Released: free for anyone, renewal fails.
      await jobs.releaseLease('j', 'B');
      expect((await jobs.leases()).find((l) => l.job === 'j')).toBeUndefined();
      expect(await jobs.renewLease('j', 'B', T + 2100, 1000)).toBe(false);
      expect(await jobs.acquireLease('j', 'A', T + 2100, 1000)).toBe(true);
    });

    it('trigger: makes jobs due; a run consumes it at its start, and one made during a run makes the next due at once', async () => {
      const jobs = new JobRepository(store.db);
      const sec = T / 1000;
      await jobs.ensureState('c', sec + 600);
      await jobs.trigger(['c', 'unknown']);
      expect((await jobs.state('c'))!.next_run_at).toBeLessThanOrEqual(sec);
      const finish = (id: string, at: number) =>
        jobs.finishRun(
          { id, job: 'c', finished_at_ms: at, status: 'ok', attempts: 1, error: null, summary: null },
          Math.floor(at / 1000) + 600,
        );
      await jobs.startRun({ id: 'r1', job: 'c', owner: 'A', started_at_ms: T });
      expect((await jobs.state('c'))!.next_run_at).toBe(sec);
      await finish('r1', T + 2000);
      expect((await jobs.state('c'))!.next_run_at).toBe(sec + 2 + 600);
      await jobs.startRun({ id: 'r2', job: 'c', owner: 'A', started_at_ms: T + 3000 });
      await jobs.trigger(['c']);
      await finish('r2', T + 5000);
      expect((await jobs.state('c'))!.next_run_at).toBe(sec + 5);
    });

    it('concurrent acquisitions by many owners: exactly one wins', async () => {
      const jobs = new JobRepository(store.db);
      const owners = Array.from({ length: 8 }, (_, i) => `w${i}`);
      const won = await Promise.all(owners.map((o) => jobs.acquireLease('race', o, T, 10_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = owners[won.indexOf(true)];
      expect(await jobs.leases()).toEqual([{ job: 'race', owner: winner, expires_at_ms: T + 10_000 }]);
    });

    it('ensureState keeps an existing schedule; finishRun counts consecutive failures and resets on ok', async () => {
      const jobs = new JobRepository(store.db);
      expect(await jobs.state('j')).toBeUndefined();
      await jobs.ensureState('j', 100);
      await jobs.ensureState('j', 999);
      expect(await jobs.state('j')).toEqual({ job: 'j', next_run_at: 100, last_run_id: null, consecutive_failures: 0 });

      let n = 0;
      const finish = async (status: 'ok' | 'failed', next: number) => {
        const id = `run-${++n}`;
        await jobs.startRun({ id, job: 'j', owner: 'A', started_at_ms: T + n });
        expect((await jobs.run(id))!.status).toBe('running');
        await jobs.finishRun(
          {
            id,
            job: 'j',
            finished_at_ms: T + n + 1,
            status,
            attempts: 2,
            error: status === 'ok' ? null : 'boom',
            summary: status === 'ok' ? 'did it' : null,
          },
          next,
        );
        return id;
      };

      const f1 = await finish('failed', 200);
      expect(await jobs.state('j')).toEqual({ job: 'j', next_run_at: 200, last_run_id: f1, consecutive_failures: 1 });
      expect(await jobs.run(f1)).toEqual({
        id: f1,
        job: 'j',
        owner: 'A',
        started_at_ms: T + 1,
        finished_at_ms: T + 2,
        status: 'failed',
        attempts: 2,
        error: 'boom',
        summary: null,
      });
      await finish('failed', 300);
      expect((await jobs.state('j'))!.consecutive_failures).toBe(2);
      const ok = await finish('ok', 400);
      expect(await jobs.state('j')).toEqual({ job: 'j', next_run_at: 400, last_run_id: ok, consecutive_failures: 0 });
      await finish('failed', 500);
      expect((await jobs.state('j'))!.consecutive_failures).toBe(1);

      expect((await jobs.lastSuccess('j'))!.id).toBe(ok);
      expect((await jobs.recentRuns('j', 2)).map((r) => r.id)).toEqual(['run-4', 'run-3']);
      expect((await jobs.states()).map((s) => s.job)).toEqual(['j']);
    });

    it('pruneRuns deletes old finished runs only', async () => {
      const jobs = new JobRepository(store.db);
      await jobs.ensureState('j', 0);
      const finished = async (id: string, startedMs: number) => {
        await jobs.startRun({ id, job: 'j', owner: 'A', started_at_ms: startedMs });
        await jobs.finishRun(
          { id, job: 'j', finished_at_ms: startedMs + 1, status: 'ok', attempts: 1, error: null, summary: null },
          0,
        );
      };
      await finished('old-1', T - 2000);
      await finished('old-2', T - 1001);
      await finished('edge', T - 1000);
      await finished('new', T);
      await jobs.startRun({ id: 'old-running', job: 'j', owner: 'A', started_at_ms: T - 5000 });

      expect(await jobs.pruneRuns(T - 1000)).toBe(2);
      const left = (await jobs.recentRuns('j', 10)).map((r) => r.id).sort();
      expect(left).toEqual(['edge', 'new', 'old-running']);
      expect(await jobs.pruneRuns(T - 1000)).toBe(0);
    });

    it('runHistory() counts runs per job and time bucket since a time, with durations of the finished ones', async () => {
      const jobs = new JobRepository(store.db);
      const since = T;
      const bucket = 60_000;
      expect(await jobs.runHistory(['a', 'b'], since, bucket, 100)).toEqual([]);
      expect(await jobs.runHistory([], since, bucket, 100)).toEqual([]);
      let n = 0;
      const run = async (job: string, startedMs: number, durationMs: number | null, status: 'ok' | 'failed') => {
        const id = `h-${++n}`;
        await jobs.ensureState(job, 0);
        await jobs.startRun({ id, job, owner: 'A', started_at_ms: startedMs });
        if (durationMs !== null) {
          const error = status === 'failed' ? 'boom' : null;
          await jobs.finishRun(
            { id, job, finished_at_ms: startedMs + durationMs, status, attempts: 1, error, summary: null },
            0,
          );
        }
      };
      await run('a', since - 1, 5, 'ok'); // before the window
      await run('a', since, 100, 'ok');
      await run('a', since + 59_999, 300, 'failed');
      await run('a', since + 60_000, 40, 'ok');
      await run('a', since + 60_500, null, 'ok'); // still running
      await run('b', since + 3 * 60_000 + 7, 2500, 'ok');
      expect(await jobs.runHistory(['a', 'b', 'c'], since, bucket, 100)).toEqual([
        { job: 'b', bucket: 3, runs: 1, failed: 0, running: 0, max_duration_ms: 2500, total_duration_ms: 2500 },
        { job: 'a', bucket: 1, runs: 2, failed: 0, running: 1, max_duration_ms: 40, total_duration_ms: 40 },
        { job: 'a', bucket: 0, runs: 2, failed: 1, running: 0, max_duration_ms: 300, total_duration_ms: 400 },
      ]);
      expect(await jobs.runHistory(['a'], since, bucket, 100)).toHaveLength(2);
      expect((await jobs.runHistory(['a', 'b'], since, bucket, 2)).map((r) => [r.job, r.bucket])).toEqual([
        ['b', 3],
        ['a', 1],
      ]);
      await expect(jobs.runHistory(['a'], since, 0, 10)).rejects.toThrow(/bucket/);
    });
  });
});
