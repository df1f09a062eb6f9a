import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { systemClock } from '../../core/time.js';
import { lowerThreadPriority } from '../chain/priority.js';
import { type L2Chains, openL2Chains } from './index.js';
import type { FromL2Thread, L2ThreadData, ToL2Thread } from './thread.js';

/** The layer-2 chains' thread (thread.ts): opens them, reports their status every second, stops them when asked. */
const STATUS_MS = 1000;

const data = workerData as L2ThreadData;
const post = (m: FromL2Thread) => parentPort?.postMessage(m);
lowerThreadPriority();
const log = pino(
  { level: data.logLevel, base: undefined },
  {
    write(line: string) {
      post({ type: 'log', line });
    },
  },
);

let chains: L2Chains | undefined;
let stopRequested = false;
let statusTimer: NodeJS.Timeout | undefined;

async function stop(): Promise<void> {
  if (statusTimer) clearInterval(statusTimer);
  await chains?.stop();
  post({ type: 'stopped' });
  parentPort?.close();
}

parentPort?.on('message', (m: ToL2Thread) => {
  if (m.type !== 'stop' || stopRequested) return;
  stopRequested = true;
  // Before the chains are open, `open()` stops them once they are.
  if (chains) void stop();
});

async function open(): Promise<void> {
  try {
    chains = await openL2Chains({
      dataDir: data.dataDir,
      seed: data.seed,
      genesisTimestamp: data.genesisTimestamp,
      blockSeconds: data.blockSeconds,
      ...(data.scale !== undefined ? { scale: data.scale } : {}),
      ...(data.stablecoins !== undefined ? { stablecoins: data.stablecoins } : {}),
      clock: systemClock,
      log,
    });
  } catch (err) {
    post({ type: 'open-failed', message: (err as Error).message });
    parentPort?.close();
    return;
  }
  const opened = chains;
  const statuses = () => opened.chains.map((c) => c.status());
  post({
    type: 'opened',
    chains: opened.chains.map((c) => ({
      kind: c.kind,
      chainId: c.chainId,
      rpcUrl: c.rpcUrl,
      anvilUrl: c.anvilUrl,
      manifest: c.manifest,
    })),
    config: opened.config,
    statuses: statuses(),
  });
  if (stopRequested) return stop();
  statusTimer = setInterval(() => post({ type: 'status', statuses: statuses() }), STATUS_MS);
  opened.caughtUp.then(
    () => post({ type: 'caught-up' }),
    (err: unknown) => post({ type: 'catch-up-failed', message: (err as Error).message }),
  );
}

void open();
