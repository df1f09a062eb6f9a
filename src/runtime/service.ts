import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AREAS, areaMigrations, PATHS } from '../areas/index.js';
import type { AreaEnv } from '../areas/kit/module.js';
import type { Config } from '../config/index.js';
import { type Clock, systemClock } from '../core/time.js';
import { buildApp, type OverloadLimits } from '../http/app.js';
import { TokenVerifier } from '../http/auth.js';
import { DatasetCache } from '../http/datasets.js';
import { BUILTIN_JOBS } from '../jobs/builtin.js';
import { JobRunner } from '../jobs/runner.js';
import { readyState, statusReport } from '../jobs/status.js';
import type { JobDef, JobInfo } from '../jobs/types.js';
import { Metrics } from '../metrics/metrics.js';
import { type AddressBook, EMPTY_BOOK } from '../registry/address-book.js';
import { registry } from '../registry/index.js';
import { NO_SOURCES, type SourceMap } from '../sources/index.js';
import { ChangeFollower, ChangeNotifier } from '../store/changes.js';
import { DatasetRepository } from '../store/datasets.js';
import { defaultSqliteFile, openStore, type Store } from '../store/db.js';
import { TokenRepository } from '../store/tokens.js';
import { accessLogFor } from './logger.js';
import { SharedRateLimits } from './shared-rate-limits.js';
import type { Role } from './sources.js';

export function storeFor(config: Config): Store {
  return openStore({
    databaseUrl: config.databaseUrl,
    sqliteFile: defaultSqliteFile(config.dataDir),
    migrations: areaMigrations(),
  });
}

/** What the areas' jobs get: the configuration, the registry, the address book and the sources. */
export function areaEnv(config: Config, sources: SourceMap = NO_SOURCES, book: AddressBook = EMPTY_BOOK): AreaEnv {
  return { config, registry, book, sources };
}

/** Every job of the enabled areas, plus the service's own. */
export function enabledJobs(env: AreaEnv): JobDef[] {
  return [...BUILTIN_JOBS, ...AREAS.filter((a) => !env.config.disabledAreas.has(a.id)).flatMap((a) => a.jobs(env))];
}

export interface Service {
  readonly store: Store;
  readonly app?: FastifyInstance;
  readonly runner?: JobRunner;
  readonly logger: Logger;
  /** This process's metrics (`/metrics`). */
  readonly metrics: Metrics;
  /** Makes this process see store changes (datasets, tokens) now rather than at the next sync tick. */
  syncNow(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly role: Role;
  readonly config: Config;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Overrides the store (tests). */
  readonly store?: Store;
  /** Listen on the configured port (default true); tests use `app.inject` instead. */
  readonly listen?: boolean;
  /** Extra fields for `/status` (e.g. the sandbox's RPC URL). */
  readonly statusExtra?: () => Record<string, unknown>;
  /** The sources the jobs read (default: none). */
  readonly sources?: SourceMap;
  /** Where the registry's entities live on the chains read (default: nowhere). */
  readonly book?: AddressBook;
  /** Jobs start once this settles (the sandbox's catch-up); the API serves meanwhile. */
  readonly jobsAfter?: Promise<void>;
  /** Called last by `close()` (e.g. stopping the sandbox world). */
  readonly onClose?: () => Promise<void>;
  /** Overrides of the API's overload limits (tests). */
  readonly overload?: Partial<OverloadLimits>;
  /**
   * The jobs `/status` and `/ready` report when they run elsewhere (the job side of `start`, on its own thread);
   * undefined until that side has said, and `/ready` then waits for every enabled area's computations.
   */
  readonly jobList?: () => readonly JobInfo[] | undefined;
  /** Called after each publication of this process's jobs (the job side of `start` tells the API half). */
  readonly onPublished?: () => void;
  /** Called when one of this process's job runs ends. */
  readonly onRunFinished?: (job: string, status: 'ok' | 'failed', seconds: number) => void;
}

/**
 * Assembles the service for a role: `serve` (API only), `worker` (jobs only) or `start` (both in one process).
 * Migrations are applied first in every role.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { config, logger, role } = options;
  const clock = options.clock ?? systemClock;
  const store = options.store ?? storeFor(config);
  const applied = await store.migrate();
  if (applied.length) logger.info({ applied }, 'migrations applied');
  const metrics = new Metrics();
  const notifier = new ChangeNotifier(logger, config.redisUrl);
  const jobs = enabledJobs(areaEnv(config, options.sources, options.book));
  const closers: (() => Promise<void> | void)[] = [];

  let follower: ChangeFollower | undefined;
  let app: FastifyInstance | undefined;
  if (role !== 'worker') {
    const verifier = new TokenVerifier(new TokenRepository(store.db), clock, {
      lookupsPerSecond: config.tokenLookupsPerSecond,
      metrics,
      logger,
    });
    await verifier.reload();
    const cache = new DatasetCache(new DatasetRepository(store.db), clock);
    follower = new ChangeFollower(
      store,
      config.syncIntervalMs,
      logger,
      async (what) => {
        if (what === 'datasets') cache.clear();
        else await verifier.reload();
      },
      config.redisUrl,
    );
    await follower.start();
    const flush = setInterval(() => verifier.flushUses().catch(() => undefined), 10_000);
    flush.unref();
    let redis: Redis | undefined;
    let rateLimits: SharedRateLimits | undefined;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
      redis.on('error', (err) => logger.warn({ err: err.message }, 'redis rate-limit client error'));
      rateLimits = new SharedRateLimits(redis, logger);
    }
    const limits = rateLimits;
    const accessLog = accessLogFor(logger);
    app = await buildApp({
      config,
      registry,
      paths: PATHS,
      areas: AREAS,
      clock,
      logger,
      metrics,
      tokens: verifier,
      datasets: cache,
      ...(accessLog ? { accessLog } : {}),
      ...(limits ? { rateLimits: limits } : {}),
      ...(options.overload ? { overload: options.overload } : {}),
      status: () =>
        statusReport(store, options.jobList ? (options.jobList() ?? []) : jobs, clock, {
          ...(limits ? { rate_limits: limits.status() } : {}),
          ...options.statusExtra?.(),
        }),
      ready: () => readyState(store, config, options.jobList ? options.jobList() : jobs, AREAS),
    });
    if (options.listen ?? true) await app.listen({ port: config.port, host: config.host });
    const listening = app;
    closers.push(async () => {
      await listening.close();
      clearInterval(flush);
      await verifier.flushUses().catch(() => undefined);
      redis?.disconnect();
    });
  }

  let runner: JobRunner | undefined;
  if (role !== 'serve') {
    const localFollower = follower;
    runner = new JobRunner({
      store,
      clock,
      log: logger,
      jobs,
      metrics,
      notifyPublished: async () => {
        await notifier.notify('datasets');
        await localFollower?.check();
        options.onPublished?.();
      },
      ...(options.onRunFinished ? { onRunFinished: options.onRunFinished } : {}),
    });
    const started = runner;
    if (options.jobsAfter) {
      let stopped = false;
      options.jobsAfter.then(
        () => (stopped ? undefined : started.start()),
        (err: unknown) => logger.error({ err }, 'jobs not started: their sources failed to come up'),
      );
      closers.unshift(() => {
        stopped = true;
        return started.stop();
      });
    } else {
      await runner.start();
      closers.unshift(() => started.stop());
    }
  }

  return {
    store,
    logger,
    metrics,
    ...(app ? { app } : {}),
    ...(runner ? { runner } : {}),
    syncNow: async () => {
      await follower?.check();
    },
    async close() {
      for (const close of closers) await close();
      await follower?.stop();
      notifier.close();
      if (!options.store) await store.close();
      await options.onClose?.();
    },
  };
}

/** Closes the service on SIGINT/SIGTERM, once. */
export function closeOnSignals(service: Service): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    service.logger.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        service.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
