import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino, { type DestinationStream, type Logger } from 'pino';
import { AREAS } from './areas/index.js';
import type { Config } from './config/index.js';
import { type Clock, systemClock } from './core/time.js';
import { buildApp } from './http/app.js';
import { TokenVerifier } from './http/auth.js';
import { DatasetCache } from './http/datasets.js';
import { Metrics } from './http/metrics.js';
import { BUILTIN_JOBS } from './jobs/builtin.js';
import { JobRunner } from './jobs/runner.js';
import { readyState, statusReport } from './jobs/status.js';
import type { JobDef } from './jobs/types.js';
import { registry } from './registry/index.js';
import { SANDBOX_GITHUB_FAULTS, startGithubStandin } from './sandbox/standins/github/server.js';
import { openWorld, type World } from './sandbox/world/world.js';
import { type EvmEnvironment, environmentFromRegistry, environmentFromSandbox, NO_EVM } from './sources/environment.js';
import { type GithubEnvironment, githubFromConfig, githubFromStandin } from './sources/github/environment.js';
import { ChangeFollower, ChangeNotifier } from './store/changes.js';
import { DatasetRepository } from './store/datasets.js';
import { defaultSqliteFile, openStore, type Store } from './store/db.js';
import { TokenRepository } from './store/tokens.js';

export type Role = 'start' | 'serve' | 'worker';

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'protoscore', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: nothing logs headers, but if a header object ever reaches a log line, no token leaves.
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'token'],
        censor: '[redacted]',
      },
    },
    destination ?? stdoutDestination(),
  );
}

/**
 * stdout through a buffer: lines are written in blocks of at least 4 KiB (or after 100 ms of quiet), not one
 * write(2) per line. Measured in docs/benchmarks.md. The buffer is flushed synchronously when the process exits.
 */
function stdoutDestination(): DestinationStream {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => dest.flush(), 100);
  timer.unref();
  process.on('exit', () => {
    try {
      dest.flushSync();
    } catch {
      // stdout already closed: nothing left to do.
    }
  });
  return dest;
}

export function storeFor(config: Config): Store {
  return openStore({ databaseUrl: config.databaseUrl, sqliteFile: defaultSqliteFile(config.dataDir) });
}

/** Every job of the enabled areas, plus the service's own. */
export function enabledJobs(config: Config, evm: EvmEnvironment = NO_EVM, github?: GithubEnvironment): JobDef[] {
  const env = { config, evm, ...(github ? { github } : {}) };
  return [...BUILTIN_JOBS, ...AREAS.filter((a) => !config.disabledAreas.has(a.id)).flatMap((a) => a.jobs(env))];
}

export interface Service {
  readonly store: Store;
  readonly app?: FastifyInstance;
  readonly runner?: JobRunner;
  readonly logger: Logger;
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
  /** The chains and deployments on-chain jobs read (default: none). */
  readonly evm?: EvmEnvironment;
  /** The GitHub API the development area reads (default: none, no development jobs). */
  readonly github?: GithubEnvironment;
  /** Jobs start once this settles (the sandbox's catch-up); the API serves meanwhile. */
  readonly jobsAfter?: Promise<void>;
  /** Called last by `close()` (e.g. stopping the sandbox world). */
  readonly onClose?: () => Promise<void>;
}

export interface EvmSetup {
  readonly evm: EvmEnvironment;
  readonly world?: World;
}

/**
 * Where on-chain data comes from: the chains of `RPC_URL_<CHAIN>`, or (for `start` with none configured) the
 * sandbox world in `DATA_DIR`, created on the first start and resumed after. `serve` needs no source and a
 * `worker` without RPC URLs runs only the off-chain jobs.
 */
export async function openEvm(config: Config, role: Role, logger: Logger): Promise<EvmSetup> {
  if (config.rpcUrls.size) return { evm: environmentFromRegistry(config.rpcUrls) };
  if (role !== 'start') return { evm: NO_EVM };
  let lastTenth = -1;
  const world = await openWorld({
    dataDir: config.dataDir,
    seed: config.sandbox.seed,
    days: config.sandbox.days,
    blockSeconds: config.sandbox.blockSeconds,
    scale: config.sandbox.scale,
    log: logger,
    live: true,
    onProgress: (done, total) => {
      const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      logger.info({ done_seconds: done, total_seconds: total }, `sandbox: simulating history, ${tenth * 10} %`);
    },
  });
  logger.info({ rpc_url: world.rpcUrl, chain_id: world.chainId }, 'sandbox world open');
  return { evm: environmentFromSandbox(world.manifest, world.rpcUrl), world };
}

export interface GithubSetup {
  readonly github?: GithubEnvironment;
  /** Stops the stand-in, when one was started. */
  readonly close?: () => Promise<void>;
}

/**
 * Where the development area reads GitHub from: `GITHUB_API_URL` when configured; else, when the sandbox world
 * is in use, the GitHub stand-in, started here with the world's seed and clock and announced in running.json
 * (`github_api_url`, shown by `sandbox info`); else GitHub's public API. `serve` reads nothing.
 */
export async function openGithub(
  config: Config,
  role: Role,
  world: World | undefined,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<GithubSetup> {
  if (role === 'serve') return {};
  if (config.github.apiUrl || !world) {
    const github = githubFromConfig(config);
    // The URL only: the token never reaches a log line.
    logger.info({ github_api_url: github.baseUrl, token: github.token ? 'set' : 'none' }, 'development: GitHub API');
    if (!github.token) logger.warn('development: no GITHUB_TOKEN, so GitHub allows 60 requests an hour');
    return { github };
  }
  const standin = await startGithubStandin({ seed: config.sandbox.seed, clock, faults: SANDBOX_GITHUB_FAULTS });
  await world.announce({ github_api_url: standin.url });
  logger.info({ github_api_url: standin.url }, 'sandbox: GitHub stand-in started');
  return { github: githubFromStandin(standin.url), close: () => standin.close() };
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
  const jobs = enabledJobs(config, options.evm, options.github);
  const closers: (() => Promise<void> | void)[] = [];

  let follower: ChangeFollower | undefined;
  let app: FastifyInstance | undefined;
  if (role !== 'worker') {
    const verifier = new TokenVerifier(new TokenRepository(store.db), clock);
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
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
      redis.on('error', (err) => logger.warn({ err: err.message }, 'redis rate-limit client error'));
    }
    app = await buildApp({
      config,
      registry,
      clock,
      logger,
      metrics,
      tokens: verifier,
      datasets: cache,
      ...(redis ? { redis } : {}),
      status: () => statusReport(store, jobs, clock, options.statusExtra?.() ?? {}),
      ready: () => readyState(store, config, jobs),
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
      },
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
