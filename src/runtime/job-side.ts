/**
 * The job side of `start` on its own thread: the sources (the sandbox world with its anvil, the stand-ins) and the
 * job runner run in a worker thread (`job-thread.ts`), so that no ingestion, simulation or computation ever holds
 * the API's event loop. The two halves share the store (each its own connection; SQLite in WAL mode lets the API
 * read while the jobs write) and talk only through the messages below. Why a thread rather than a child process:
 * docs/benchmarks.md ("start: job side on a thread or in a process").
 */

import { Worker } from 'node:worker_threads';
import type { RunOutcome } from '../jobs/runner.js';
import type { JobInfo } from '../jobs/types.js';
import { threadEntry } from '../sandbox/thread-entry.js';
import type { WorldStatus } from '../sandbox/world/world.js';
import type { SourceKind } from '../sources/index.js';

/** What the main thread hands the job thread: the environment its configuration is read from. */

/**
 * What `/status` shows of the sandbox: the Ethereum world, the other chains it runs (the layer-2 chains: how far
 * their history is simulated) and the stand-ins with the URL each answers on.
 */
export interface SandboxStatus {
  readonly world: WorldStatus;
  readonly chains: Readonly<Record<string, { chain_id: number; rpc_url: string; simulated_until: number }>>;
  readonly standins: Readonly<Partial<Record<SourceKind, string>>>;
}

export interface JobThreadData {
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What the job side tells once its sources are up. */
export interface JobSideSources {
  readonly jobs: readonly JobInfo[];
  readonly world?: { readonly rpcUrl: string; readonly chainId: number };
  readonly standins: readonly { kind: SourceKind; url: string }[];
  /** GitHub is read anonymously (no token, no stand-in): 60 requests an hour. */
  readonly githubAnonymous: boolean;
}

export type ToMain =
  | { readonly type: 'log'; readonly line: string }
  | { readonly type: 'simulation'; readonly done: number; readonly total: number }
  | { readonly type: 'sources'; readonly sources: JobSideSources }
  /** Setting the sources up failed; `config` when it is the operator's to fix (a bad key, a mismatched world). */
  | { readonly type: 'setup-failed'; readonly message: string; readonly config: boolean }
  | { readonly type: 'caught-up' }
  | { readonly type: 'world'; readonly status: SandboxStatus }
  | { readonly type: 'published' }
  | { readonly type: 'run-finished'; readonly job: string; readonly status: 'ok' | 'failed'; readonly seconds: number }
  | {
      readonly type: 'run-result';
      readonly id: number;
      readonly outcome: RunOutcome | { status: 'error'; error: string };
    }
  | { readonly type: 'closed' };

export type ToThread = { readonly type: 'close' } | { readonly type: 'run'; readonly id: number; readonly job: string };

/** Thrown by `JobSide.sources` when the job side could not set its sources up. */
export class JobSideSetupError extends Error {
  constructor(
    message: string,
    /** The operator's to fix (configuration, saved world): say it without a stack trace. */
    readonly config: boolean,
  ) {
    super(message);
    this.name = 'JobSideSetupError';
  }
}

export interface JobSideHandlers {
  /** A log line of the job side, exactly as its logger wrote it (JSON). */
  log(line: string): void;
  /** Datasets were published: the API half should look at the store now. */
  published(): void;
  /** Progress of the first start (simulation, catch-up, job runs). */
  progress?(event: ToMain): void;
  /** The thread ended without being asked to (a crash): the service must not go on without its jobs. */
  crashed(err: Error): void;
}

export interface JobSide {
  /** Settles once the sources are up (the world deployed or resumed, the stand-ins started). */
  readonly sources: Promise<JobSideSources>;
  /** The job side's jobs, once known. */
  jobs(): readonly JobInfo[] | undefined;
  /** The sandbox's latest status (sent every second), when there is a world. */
  sandbox(): SandboxStatus | undefined;
  /** Runs one job now on the job side (as `protoscore jobs run` would, under its lease). */
  runOnce(job: string): Promise<RunOutcome>;
  /** Stops the jobs, the stand-ins and the world (saved), then the thread. Idempotent. */
  close(): Promise<void>;
}

/** How long `close()` waits for the job side to stop its jobs and save the world before ending the thread. */
const CLOSE_TIMEOUT_MS = 30_000;

export function startJobSide(data: JobThreadData, handlers: JobSideHandlers): JobSide {
  const entry = threadEntry(import.meta.url, 'job-thread');
  const worker = new Worker(entry.filename, {
    eval: entry.eval,
    workerData: data,
    env: { ...data.env },
  });
  let jobs: readonly JobInfo[] | undefined;
  let sandbox: SandboxStatus | undefined;
  let closing = false;
  let exited = false;
  let nextRunId = 1;
  const pendingRuns = new Map<number, { resolve(o: RunOutcome): void; reject(e: Error): void }>();
  let sourcesSettled = false;
  let resolveSources!: (s: JobSideSources) => void;
  let rejectSources!: (e: Error) => void;
  const sources = new Promise<JobSideSources>((resolve, reject) => {
    resolveSources = resolve;
    rejectSources = reject;
  });
  sources.catch(() => undefined);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  worker.on('message', (message: ToMain) => {
    switch (message.type) {
      case 'log':
        handlers.log(message.line);
        return;
      case 'sources':
        jobs = message.sources.jobs;
        sourcesSettled = true;
        resolveSources(message.sources);
        break;
      case 'setup-failed':
        sourcesSettled = true;
        rejectSources(new JobSideSetupError(message.message, message.config));
        break;
      case 'world':
        sandbox = message.status;
        return;
      case 'published':
        handlers.published();
        break;
      case 'run-result': {
        const pending = pendingRuns.get(message.id);
        pendingRuns.delete(message.id);
        if (message.outcome.status === 'error') pending?.reject(new Error(message.outcome.error));
        else pending?.resolve(message.outcome);
        return;
      }
      case 'closed':
        resolveClosed();
        return;
    }
    handlers.progress?.(message);
  });
  const ended = (err: Error) => {
    if (exited) return;
    exited = true;
    resolveClosed();
    for (const pending of pendingRuns.values()) pending.reject(err);
    pendingRuns.clear();
    if (!sourcesSettled) rejectSources(err);
    if (!closing) handlers.crashed(err);
  };
  worker.on('error', (err) => ended(err));
  worker.on('exit', (code) => ended(new Error(`the job thread exited (code ${code})`)));

  let closeOnce: Promise<void> | undefined;
  return {
    sources,
    jobs: () => jobs,
    sandbox: () => sandbox,
    runOnce(job) {
      if (exited || closing) return Promise.reject(new Error('the job side is stopped'));
      const id = nextRunId++;
      return new Promise<RunOutcome>((resolve, reject) => {
        pendingRuns.set(id, { resolve, reject });
        worker.postMessage({ type: 'run', id, job } satisfies ToThread);
      });
    },
    close() {
      closeOnce ??= (async () => {
        closing = true;
        if (exited) return;
        worker.postMessage({ type: 'close' } satisfies ToThread);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)))]);
        clearTimeout(timer);
        await worker.terminate();
      })();
      return closeOnce;
    },
  };
}
