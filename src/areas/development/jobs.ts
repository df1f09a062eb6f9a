import { sleepOrStop } from '../../core/retry.js';
import { nowSeconds } from '../../core/time.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import type { DevelopmentSubject, Registry } from '../../registry/index.js';
import type { GithubEndpoint } from '../../sources/github/endpoint.js';
import { GithubSource } from '../../sources/github/source.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import { computeJob, DocumentSet, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
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
/** GitHub is read every 10 minutes: a pass over ~130 repositories is ~1300 requests, mostly free 304s. */
const INGEST_EVERY_SECONDS = 600;
/** Two missed passes and a margin. */
const FRESH_FOR_SECONDS = 3 * INGEST_EVERY_SECONDS + 600;
/** Repositories read at once (the client keeps at most 2 requests in flight anyway). */
const PARALLEL_REPOS = 2;

export function selectedSubjects(registry: Registry, github: GithubEndpoint): DevelopmentSubject[] {
  const all = registry.developmentSubjects();
  return github.subjects ? all.filter((s) => github.subjects!.includes(subjectKey(s))) : all;
}

export function developmentJobs(env: AreaEnv): JobDef[] {
  const github = env.sources.get('github');
  if (!github) return [];
  const subjects = selectedSubjects(env.registry, github);
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
      sleep: github.sleep ?? ((ms: number) => sleepOrStop(ms, runSignal, 'development.ingest')),
      ...(github.maxRetries !== undefined ? { maxRetries: github.maxRetries } : {}),
      log: ctx.log,
    });
    return source;
  };

  const ingestJob: JobDef = {
    name: 'development.ingest',
    area: 'development',
    description: `Reads the repositories of ${subjects.length} protocols and chains from GitHub (${github.label ?? github.baseUrl})`,
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

  const provenance = github.label ?? `GitHub REST API (${github.baseUrl})`;
  const computeDevelopmentJob = computeJob({
    name: DEVELOPMENT_COMPUTATION,
    area: 'development',
    description: 'Repository records, statistics and development scores of every tracked protocol and chain (5 paths)',
    everySeconds: 30,
    // The same documents as published (as when a repository's failure holds as_of back while the others moved
    // on): nothing is republished, so the version, computed_at and every ETag clients hold stay valid.
    keepIdentical: true,
    inputs: async (ctx) => {
      const repos = await readCheckpoint<Record<string, string[]>>(ctx.store.db, REPOS_KEY);
      if (!repos) return wait('no repositories discovered yet');
      const names = [...new Set(Object.values(repos).flat())];
      const snapshots = await new DevelopmentRepository(devDb(ctx.store.db)).snapshotTimes(names);
      if (!snapshots.length) return wait('no repository ingested yet');
      const passed = (await readCheckpoint(ctx.store.db, PASSED_KEY)) !== undefined;
      return { repos, passed, snapshots };
    },
    load: async (ctx, { repos, passed }) => {
      const facts = await new DevelopmentRepository(devDb(ctx.store.db)).facts([
        ...new Set(Object.values(repos).flat()),
      ]);
      if (!facts.size) return wait('no repository ingested yet');
      // One as_of for the publication: the repository observed longest ago.
      const asOf = Math.min(...[...facts.values()].map((f) => f.snapshotAt));
      // A subject is published once each of its repositories has been read, so that the first pass (which takes
      // minutes) never publishes a protocol over part of its repositories; after a whole pass, also with those
      // that were read (one that keeps failing must not hide the others).
      const inputs: SubjectInput[] = subjects.flatMap((s) => {
        const names = repos[subjectKey(s)] ?? [];
        const read = names.flatMap((name) => facts.get(name) ?? []);
        if (!read.length || (read.length < names.length && !passed)) return [];
        return [{ kind: s.kind, id: s.id, name: s.name, repos: read }];
      });
      if (!inputs.length) return wait('no protocol or chain has all its repositories read yet');
      return { asOf, subjects: inputs };
    },
    compute: computeDevelopment,
    documents: (output, input) => {
      const docs = new DocumentSet(developmentPaths, {
        asOf: input.asOf,
        source: provenance,
        freshFor: FRESH_FOR_SECONDS,
      });
      const scored = { methodology: DEVELOPMENT_METHODOLOGY };
      for (const [protocol, records] of output.activity) docs.add('development.activity', { protocol }, records);
      for (const [key, stats] of output.stats) {
        const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
        if (kind === 'protocol') docs.add('development.stats', { protocol: id }, stats, scored);
      }
      for (const [key, history] of output.scores) {
        const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
        if (kind === 'protocol') docs.add('development.protocol-score', { protocol: id }, history, scored);
        else docs.add('development.chain-score', { chain: id }, history, scored);
      }
      docs.add('development.all', {}, output.ranking, scored);
      return docs.documents;
    },
    describe: (input) => `as of ${input.asOf}`,
  });
  return [ingestJob, computeDevelopmentJob];
}
