/**
 * `protoscore start`: the API on this thread, the job side (sources, sandbox world, stand-ins, job runner) on a
 * worker thread (job-side.ts). The API half has its own store connection, token verifier, dataset cache and change
 * follower; when the job side publishes, it is told at once and drops its cache, and `/status` shows the job side's
 * jobs and the sandbox world's status as the job side reports them.
 */
import type { Logger } from 'pino';
import { AREAS, areaMigrations } from '../areas/index.js';
import type { Config } from '../config/index.js';
import { readyState } from '../jobs/status.js';
import type { JobInfo } from '../jobs/types.js';
import { defaultSqliteFile, openStore } from '../store/db.js';
import { type JobSide, type JobSideSources, startJobSide, type ToMain } from './job-side.js';
import { type Service, startService } from './service.js';

/** What the first start's progress is made of (FirstStartProgress, progress.ts, consumes these). */
export type StartProgressEvent =
  | { readonly kind: 'simulation'; readonly done: number; readonly total: number }
  | { readonly kind: 'history-done' }
  | { readonly kind: 'jobs'; readonly ingest: readonly string[] }
  | { readonly kind: 'run'; readonly job: string; readonly ok: boolean }
  | { readonly kind: 'readiness'; readonly waiting: number; readonly of: number };

export interface EmbeddedOptions {
  readonly config: Config;
  /** The environment both halves read their configuration from (the job side parses it again on its thread). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Where the job side's log lines (JSON, one per call) go: the main logger's destination. */
  readonly logLine: (line: string) => void;
  /** Listen on the configured port (default true). */
  readonly listen?: boolean;
  readonly onProgress?: (event: StartProgressEvent) => void;
  /** Runs once the API listens and before the job side starts (the quickstart token: a write no job contends with). */
  readonly beforeJobSide?: (service: Service) => Promise<void>;
  /**
   * The job side ended without being asked to. Default: logged as an error and the API closed, so that the service
   * never goes on without its jobs; the CLI also ends the process with a non-zero code.
   */
  readonly onJobSideCrash?: (err: Error, service: Service) => void;
}

export interface Embedded extends Service {
  readonly jobSide: JobSide;
  /** What the job side started (the world, the stand-ins, the jobs). */
  readonly sources: JobSideSources;
}

const API_BUSY_TIMEOUT_MS = 250;

/** The computations `/ready` waits for, given the jobs the job side schedules. */
function awaitedComputations(config: Config, jobs: readonly JobInfo[]): string[] {
  const scheduled = new Set(jobs.map((j) => j.name));
  return AREAS.filter((a) => !config.disabledAreas.has(a.id))
    .flatMap((a) => a.computations)
    .filter((c) => scheduled.has(c));
}

/**
 * Starts the API (listening at once), then the job side; resolves once the job side's sources are up. Rejects
 * with JobSideSetupError (after closing the API) when they cannot come up.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const { config, logger } = options;
  let jobSide: JobSide | undefined;
  let computations: readonly string[] = [];
  // better-sqlite3 waits for a busy database synchronously: the API half's writes (token use times) give up after
  // 250 ms rather than hold the event loop for the default 5 s while a job writes.
  const store = openStore({
    databaseUrl: config.databaseUrl,
    sqliteFile: defaultSqliteFile(config.dataDir),
    migrations: areaMigrations(),
    busyTimeoutMs: API_BUSY_TIMEOUT_MS,
  });
  const service = await startService({
    role: 'serve',
    config,
    logger,
    store,
    ...(options.listen === undefined ? {} : { listen: options.listen }),
    jobList: () => jobSide?.jobs(),
    statusExtra: () => {
      const sandbox = jobSide?.sandbox();
      if (!sandbox) return {};
      // The Ethereum world under `sandbox` (its keys as before), then the other chains and the stand-ins.
      return {
        sandbox: sandbox.world,
        ...(Object.keys(sandbox.chains).length ? { sandbox_chains: sandbox.chains } : {}),
        ...(Object.keys(sandbox.standins).length ? { sandbox_standins: sandbox.standins } : {}),
      };
    },
    onClose: async () => {
      await jobSide?.close();
      await store.close();
    },
  });
  try {
    await options.beforeJobSide?.(service);
  } catch (err) {
    await service.close();
    throw err;
  }
  const progress = options.onProgress;
  const reportReadiness = async () => {
    const jobs = jobSide?.jobs();
    if (!progress || !jobs) return;
    const { waiting } = await readyState(service.store, config, jobs, AREAS);
    progress({ kind: 'readiness', waiting: waiting.length, of: computations.length });
  };
  const onEvent = (message: ToMain) => {
    // The job thread's runs count in this process's /metrics, as they would in a `worker`'s.
    if (message.type === 'run-finished') service.metrics.observeJobRun(message.job, message.status, message.seconds);
    if (!progress) return;
    if (message.type === 'simulation') progress({ kind: 'simulation', done: message.done, total: message.total });
    else if (message.type === 'caught-up') progress({ kind: 'history-done' });
    else if (message.type === 'run-finished') progress({ kind: 'run', job: message.job, ok: message.status === 'ok' });
    else if (message.type === 'sources') {
      const ingest = message.sources.jobs.filter((j) => j.area !== undefined && !computations.includes(j.name));
      progress({ kind: 'jobs', ingest: ingest.map((j) => j.name) });
    }
  };
  const crashed =
    options.onJobSideCrash ??
    ((err: Error) => {
      logger.error({ err }, 'the job side stopped unexpectedly; stopping the API');
      void service.close();
    });
  jobSide = startJobSide(
    { env: options.env },
    {
      log: options.logLine,
      published: () => {
        service
          .syncNow()
          .then(reportReadiness)
          .catch((err: unknown) => logger.warn({ err }, 'dataset sync after a publication failed'));
      },
      progress: (message) => {
        if (message.type === 'sources') computations = awaitedComputations(config, message.sources.jobs);
        onEvent(message);
        if (message.type === 'sources')
          reportReadiness().catch((err: unknown) => logger.warn({ err }, 'readiness check failed'));
      },
      crashed: (err) => crashed(err, service),
    },
  );
  let sources: JobSideSources;
  try {
    sources = await jobSide.sources;
  } catch (err) {
    await service.close();
    throw err;
  }
  const side = jobSide;
  return { ...service, jobSide: side, sources };
}
