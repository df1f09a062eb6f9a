import type { Kysely } from 'kysely';
import { nowSeconds } from '../../core/time.js';
import { compilePath, documentPath } from '../../http/route-table.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import { type DevelopmentSubject, registry } from '../../registry/index.js';
import type { GithubEnvironment } from '../../sources/github/environment.js';
import { GithubSource } from '../../sources/github/index.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import type { DatasetDocument } from '../../store/datasets.js';
import type { Database } from '../../store/schema.js';
import { ComputedInputs, publishComputation } from '../publication.js';
import type { AreaEnv } from '../types.js';
import { computeDevelopment, type SubjectInput } from './compute.js';
import { devDb } from './facts.js';
import { DbEtagStore, discoverRepos, ETAG_RETAIN_SECONDS, ingestRepo, subjectKey } from './ingest.js';
import { DevelopmentRepository } from './repo.js';
import { developmentPaths } from './routes.js';
import { DEVELOPMENT_METHODOLOGY } from './score.js';

/**
 * The development area's jobs: `development.ingest` (each subject's repositories from GitHub → facts, one
 * transaction per repository) and `development.compute` (facts → the 5 paths' documents, published at once).
 */

export const DEVELOPMENT_COMPUTATION = 'development.compute';
/** Checkpoint: the repositories each subject tracks (`kind:id` → names), written after a complete discovery. */
export const REPOS_KEY = 'development:repos';
/** Checkpoint: the last complete ingest (instant and per-repository snapshot times). */
const INGESTED_KEY = 'development:ingested';
/** Checkpoint: the last ingest pass that went over every repository, failed ones included. */
const PASSED_KEY = 'development:passed';
const COMPUTED_KEY = 'development:computed';
/** GitHub is read every 10 minutes: a pass over ~130 repositories is ~1300 requests, mostly free 304s. */
const INGEST_EVERY_SECONDS = 600;
/** Two missed passes and a margin. */
const FRESH_FOR_SECONDS = 3 * INGEST_EVERY_SECONDS + 600;
/** Repositories read at once (the client keeps at most 2 requests in flight anyway). */
const PARALLEL_REPOS = 2;

const compiled = new Map(developmentPaths.map((def) => [def.id, compilePath(def)]));
function pathOf(id: string, values: Record<string, string>): string {
  return documentPath(compiled.get(id)!, values);
}

/** Whether `documents` are exactly the computation's published set (paths, payloads, as_of, meta, freshness). */
async function samePublication(db: Kysely<Database>, documents: readonly DatasetDocument[]): Promise<boolean> {
  const rows = await db
    .selectFrom('datasets')
    .select(['path', 'payload', 'meta', 'as_of', 'fresh_for'])
    .where('computation', '=', DEVELOPMENT_COMPUTATION)
    .execute();
  if (rows.length !== documents.length) return false;
  const byPath = new Map(rows.map((r) => [r.path, r]));
  return documents.every((d) => {
    const row = byPath.get(d.path);
    if (!row || Number(row.as_of) !== d.asOf || Number(row.fresh_for) !== d.freshFor) return false;
    if (row.payload !== JSON.stringify(d.data)) return false;
    const meta = JSON.parse(row.meta) as Record<string, unknown>;
    return meta.source === d.source && meta.methodology === d.methodology;
  });
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('development.ingest: stopped'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('development.ingest: stopped'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function selectedSubjects(github: GithubEnvironment): DevelopmentSubject[] {
  const all = registry.developmentSubjects();
  return github.subjects ? all.filter((s) => github.subjects!.includes(subjectKey(s))) : all;
}

export function developmentJobs(env: AreaEnv): JobDef[] {
  const github = env.github;
  if (!github) return [];
  const subjects = selectedSubjects(github);
  let source: GithubSource | undefined;
  let etagStore: DbEtagStore | undefined;
  // The running pass's signal: the client's waits (rate limits, backoff) end with it, so a stopping service is
  // not held for a minute-long secondary limit.
  let runSignal: AbortSignal | undefined;
  const sourceFor = (ctx: JobContext) => {
    etagStore ??= new DbEtagStore(devDb(ctx.store.db), () => nowSeconds(ctx.clock));
    source ??= new GithubSource({
      baseUrl: github.baseUrl,
      ...(github.token ? { token: github.token } : {}),
      etagStore,
      clock: github.clock ?? ctx.clock,
      sleep: github.sleep ?? ((ms: number) => abortableSleep(ms, runSignal)),
      ...(github.maxRetries !== undefined ? { maxRetries: github.maxRetries } : {}),
      log: ctx.log,
    });
    return source;
  };

  const ingestJob: JobDef = {
    name: 'development.ingest',
    area: 'development',
    description: `Reads the repositories of ${subjects.length} protocols and chains from GitHub (${github.kind === 'sandbox' ? 'the sandbox stand-in' : github.baseUrl})`,
    everySeconds: INGEST_EVERY_SECONDS,
    maxAttempts: 3,
    backoffMs: 5000,
    async run(ctx) {
      runSignal = ctx.signal;
      const src = sourceFor(ctx);
      const db = devDb(ctx.store.db);
      const before = { ...src.stats };
      const repos = await discoverRepos(src, subjects);
      await writeCheckpoint(ctx.store.db, REPOS_KEY, repos, nowSeconds(ctx.clock));
      const names = [...new Set(Object.values(repos).flat())];
      const failures: string[] = [];
      let facts = 0;
      let pruned = 0;
      let next = 0;
      const worker = async () => {
        while (next < names.length && !ctx.signal.aborted) {
          const name = names[next++]!;
          try {
            const r = await ingestRepo(src, db, name, nowSeconds(ctx.clock));
            facts += r.commits + r.issues + r.events;
            pruned += r.pruned;
          } catch (err) {
            // One repository failing leaves its facts as they were; the others go on.
            failures.push(`${name}: ${(err as Error).message}`);
            ctx.log.warn({ repo: name, err: (err as Error).message }, 'development.ingest: repository failed');
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL_REPOS }, worker));
      // Conditional-request entries of URLs no longer asked (old cursors); in-use ones are refreshed by their 304s.
      const etagsPruned = await etagStore!.prune(nowSeconds(ctx.clock) - ETAG_RETAIN_SECONDS);
      const requests = src.stats.requests - before.requests;
      const notModified = src.stats.notModified - before.notModified;
      const summary =
        `${names.length - failures.length}/${names.length} repositories, ${facts} facts read, ${requests} requests ` +
        `(${notModified} answered 304), ${pruned} facts and ${etagsPruned} ETag entries past retention deleted`;
      if (!ctx.signal.aborted) {
        const at = nowSeconds(ctx.clock);
        await writeCheckpoint(ctx.store.db, PASSED_KEY, { at, failed: failures.length }, at);
      }
      if (failures.length) throw new Error(`${summary}; failed: ${failures.slice(0, 3).join('; ')}`);
      await writeCheckpoint(ctx.store.db, INGESTED_KEY, { at: nowSeconds(ctx.clock) }, nowSeconds(ctx.clock));
      return summary;
    },
  };

  const computeJob: JobDef = {
    name: DEVELOPMENT_COMPUTATION,
    area: 'development',
    description: 'Repository records, statistics and development scores of every tracked protocol and chain (5 paths)',
    everySeconds: 30,
    async run(ctx) {
      const db = devDb(ctx.store.db);
      const repos = await readCheckpoint<Record<string, string[]>>(ctx.store.db, REPOS_KEY);
      if (!repos) return 'no repositories discovered yet';
      const facts = await new DevelopmentRepository(db).facts([...new Set(Object.values(repos).flat())]);
      if (!facts.size) return 'no repository ingested yet';
      // One as_of for the publication: the repository observed longest ago.
      const asOf = Math.min(...[...facts.values()].map((f) => f.snapshotAt));
      const passed = (await readCheckpoint(ctx.store.db, PASSED_KEY)) !== undefined;
      const computed = new ComputedInputs(ctx.store.db, COMPUTED_KEY);
      const inputsKey = { asOf, passed, snapshots: [...facts.values()].map((f) => [f.repo, f.snapshotAt]) };
      if (await computed.unchanged(inputsKey)) return `up to date at ${asOf}`;
      // A subject is published once each of its repositories has been read, so that the first pass (which takes
      // minutes) never publishes a protocol over part of its repositories; after a whole pass, also with those
      // that were read (one that keeps failing must not hide the others).
      const inputs: SubjectInput[] = subjects.flatMap((s) => {
        const names = repos[subjectKey(s)] ?? [];
        const read = names.flatMap((name) => facts.get(name) ?? []);
        if (!read.length || (read.length < names.length && !passed)) return [];
        return [{ kind: s.kind, id: s.id, name: s.name, repos: read }];
      });
      if (!inputs.length) return 'no protocol or chain has all its repositories read yet';
      const output = computeDevelopment({ asOf, subjects: inputs });
      const source =
        github.kind === 'sandbox' ? 'sandbox GitHub stand-in (REST API v3)' : `GitHub REST API (${github.baseUrl})`;
      const documents: DatasetDocument[] = [];
      const add = (path: string, data: unknown, methodology?: string) =>
        documents.push({
          path,
          data,
          asOf,
          source,
          freshFor: FRESH_FOR_SECONDS,
          ...(methodology ? { methodology } : {}),
        });
      for (const [protocol, records] of output.activity) add(pathOf('development.activity', { protocol }), records);
      for (const [key, stats] of output.stats) {
        const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
        if (kind === 'protocol') add(pathOf('development.stats', { protocol: id }), stats, DEVELOPMENT_METHODOLOGY);
      }
      for (const [key, history] of output.scores) {
        const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
        if (kind === 'protocol')
          add(pathOf('development.protocol-score', { protocol: id }), history, DEVELOPMENT_METHODOLOGY);
        else add(pathOf('development.chain-score', { chain: id }), history, DEVELOPMENT_METHODOLOGY);
      }
      add(pathOf('development.all', {}), output.ranking, DEVELOPMENT_METHODOLOGY);
      // The same documents as published (as when a repository's failure holds as_of back while the others moved
      // on): nothing is republished, so the version, computed_at and every ETag clients hold stay valid.
      if (await samePublication(ctx.store.db, documents)) {
        await computed.record(inputsKey, nowSeconds(ctx.clock));
        return `unchanged at ${asOf}: ${documents.length} documents as published`;
      }
      const version = await publishComputation(ctx, {
        computation: DEVELOPMENT_COMPUTATION,
        area: 'development',
        documents,
        inputs: { gate: computed, value: inputsKey },
      });
      return `published ${documents.length} documents (version ${version}) as of ${asOf}`;
    },
  };
  return [ingestJob, computeJob];
}
