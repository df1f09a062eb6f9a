/**
 * The job side of `start`, run in a worker thread (see job-side.ts): the sources (the sandbox world and its
 * stand-ins when no chain is configured), then the job runner, exactly as the `worker` role runs them. Everything
 * the main thread needs (log lines, progress, publications, the world's status, the result of a job run on demand)
 * goes out as messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/index.js';
import { systemClock } from '../core/time.js';
import type { JobSideSources, JobThreadData, SandboxStatus, ToMain, ToThread } from './job-side.js';
import { createLogger } from './logger.js';
import { isOperatorError } from './operator-error.js';
import { type Service, startService, storeFor } from './service.js';
import { type SourceSetup, setUpSources } from './sources.js';

if (!parentPort) throw new Error('job-thread.ts runs as a worker thread of `protoscore start`');
const port = parentPort;
const post = (message: ToMain) => port.postMessage(message);
const data = workerData as JobThreadData;

/** How often the world's status goes to the main thread (`/status` shows it). */
const WORLD_STATUS_MS = 1000;

async function run(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(data.env);
  } catch (err) {
    post({ type: 'setup-failed', message: (err as Error).message, config: isOperatorError(err) });
    port.on('message', () => post({ type: 'closed' }));
    return;
  }
  const logger = createLogger(config, { write: (line: string) => post({ type: 'log', line }) });
  let closeRequested = false;
  let failed = false;
  let service: Service | undefined;
  let setup: SourceSetup | undefined;
  let statusTimer: NodeJS.Timeout | undefined;
  const close = async () => {
    clearInterval(statusTimer);
    if (service) await service.close();
    else {
      await setup?.close();
      if (!failed) await store.close();
    }
    post({ type: 'closed' });
  };
  port.on('message', (message: ToThread) => {
    if (message.type === 'close') {
      closeRequested = true;
      // While the sources come up, `run` closes once they are up (a world half deployed cannot be saved).
      if (service || failed) void close();
      return;
    }
    const runner = service?.runner;
    if (!runner) {
      post({ type: 'run-result', id: message.id, outcome: { status: 'error', error: 'the jobs have not started' } });
      return;
    }
    runner.runOnce(message.job).then(
      (outcome) => post({ type: 'run-result', id: message.id, outcome }),
      (err: unknown) =>
        post({ type: 'run-result', id: message.id, outcome: { status: 'error', error: (err as Error).message } }),
    );
  });

  let lastTenth = -1;
  // The jobs' store, opened first: the sources keep their ETags in it (its migrations run as the service starts).
  const store = storeFor(config);
  try {
    setup = await setUpSources({
      config,
      role: 'start',
      logger,
      clock: systemClock,
      store,
      onProgress: (done, total) => {
        post({ type: 'simulation', done, total });
        const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        logger.info({ done_seconds: done, total_seconds: total }, `sandbox: simulating history, ${tenth * 10} %`);
      },
    });
  } catch (err) {
    const operators = isOperatorError(err);
    if (!operators) logger.error({ err }, 'sources failed to come up');
    failed = true;
    await store.close();
    post({ type: 'setup-failed', message: (err as Error).message, config: operators });
    return;
  }
  const { world } = setup;
  const opened = setup;
  if (closeRequested) {
    await close();
    return;
  }
  service = await startService({
    role: 'worker',
    config: setup.config,
    logger,
    store,
    sources: setup.sources,
    book: setup.book,
    onClose: async () => {
      await opened.close();
      await store.close();
    },
    onPublished: () => post({ type: 'published' }),
    onRunFinished: (job, status, seconds) => post({ type: 'run-finished', job, status, seconds }),
    ...(world ? { jobsAfter: world.caughtUp } : {}),
  });
  const github = setup.sources.get('github');
  const sources: JobSideSources = {
    jobs: (service.runner?.jobs ?? []).map((j) => ({
      name: j.name,
      ...(j.area ? { area: j.area } : {}),
      description: j.description,
      everySeconds: j.everySeconds,
    })),
    ...(world ? { world: { rpcUrl: world.rpcUrl, chainId: world.chainId } } : {}),
    standins: setup.standins,
    githubAnonymous: Boolean(github && !github.token && !setup.standins.length),
  };
  post({ type: 'sources', sources });
  if (world) {
    const l2 = setup.l2;
    const standins = Object.fromEntries(setup.standins.map((s) => [s.kind, s.url]));
    const status = (): SandboxStatus => ({
      world: world.status(),
      chains: Object.fromEntries(
        (l2?.chains ?? []).map((c) => {
          const st = c.status();
          return [st.chain, { chain_id: st.chain_id, rpc_url: st.rpc_url, simulated_until: st.simulated_until }];
        }),
      ),
      standins,
    });
    post({ type: 'world', status: status() });
    statusTimer = setInterval(() => post({ type: 'world', status: status() }), WORLD_STATUS_MS);
    world.caughtUp.then(
      () => post({ type: 'caught-up' }),
      () => undefined,
    );
  } else {
    post({ type: 'caught-up' });
  }
  if (closeRequested) await close();
}

await run();
