import { Worker } from 'node:worker_threads';
import { type Logger, levels } from 'pino';
import { threadEntry } from '../thread-entry.js';
import type { L2Chain, L2Kind, L2Status } from './chain.js';

/**
 * The sandbox's layer-2 chains on a thread of their own (`l2-thread.ts`), as `start` runs them: the traffic's
 * signing, the chains' catch-up and live blocks, and the proxies that shape what the service reads, off the thread
 * that runs the jobs and at a lower CPU priority (chain/priority.ts), so that on a machine short of cores the
 * Ethereum world and the service's first documents are not held up by them. The chains, their saves and their
 * cadence are those of `openL2Chains` (index.ts), on the wall clock; the thread's log lines come out in the service's
 * log.
 */

/** What the service reads of a chain on the thread (when they are caught up: `SandboxL2.caughtUp`, all at once). */
export type L2ChainView = Pick<L2Chain, 'kind' | 'chainId' | 'rpcUrl' | 'anvilUrl' | 'manifest' | 'status'>;

export interface SandboxL2 {
  readonly chains: readonly L2ChainView[];
  /** Configuration keys of the chains (`RPC_URL_OPTIMISM`, `RPC_URL_ARBITRUM`): their proxies. */
  readonly config: Readonly<Record<string, string>>;
  /** Settles when every chain has reached the clock's now. */
  readonly caughtUp: Promise<void>;
  stop(): Promise<void>;
}

export interface L2ThreadData {
  readonly dataDir: string;
  readonly seed: number;
  readonly genesisTimestamp: number;
  readonly blockSeconds: number;
  readonly logLevel: string;
  /** The world's activity multiplier and switches, for the protocols the chains host (the production list's). */
  readonly scale?: number;
  readonly stablecoins?: boolean;
}

export type FromL2Thread =
  | { readonly type: 'log'; readonly line: string }
  | {
      readonly type: 'opened';
      readonly chains: readonly Pick<L2Chain, 'kind' | 'chainId' | 'rpcUrl' | 'anvilUrl' | 'manifest'>[];
      readonly config: Readonly<Record<string, string>>;
      readonly statuses: readonly L2Status[];
    }
  | { readonly type: 'open-failed'; readonly message: string }
  | { readonly type: 'status'; readonly statuses: readonly L2Status[] }
  | { readonly type: 'caught-up' }
  | { readonly type: 'catch-up-failed'; readonly message: string }
  | { readonly type: 'stopped' };

export type ToL2Thread = { readonly type: 'stop' };

/** How long `stop()` waits for the chains to save and stop before ending the thread. */
const STOP_TIMEOUT_MS = 30_000;

/** Writes a log line of the thread (pino JSON) through the service's logger. */
function relay(log: Logger, line: string): void {
  try {
    const {
      level,
      msg,
      time: _time,
      pid: _pid,
      hostname: _host,
      ...fields
    } = JSON.parse(line) as Record<string, unknown>;
    const label = levels.labels[Number(level)] as 'info' | 'warn' | 'error' | 'debug' | 'trace' | 'fatal' | undefined;
    log[label ?? 'info'](fields, typeof msg === 'string' ? msg : '');
  } catch {
    log.info(line.trim());
  }
}

export async function openL2ChainsOnThread(
  options: Omit<L2ThreadData, 'logLevel'> & { log: Logger },
): Promise<SandboxL2> {
  const { log, ...rest } = options;
  const entry = threadEntry(import.meta.url, 'l2-thread');
  const data: L2ThreadData = { ...rest, logLevel: log.level };
  const worker = new Worker(entry.filename, { eval: entry.eval, workerData: data });
  const statuses = new Map<L2Kind, L2Status>();
  let resolveOpened!: (m: Extract<FromL2Thread, { type: 'opened' }>) => void;
  let rejectOpened!: (e: Error) => void;
  const opened = new Promise<Extract<FromL2Thread, { type: 'opened' }>>((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  let resolveCaughtUp!: () => void;
  let rejectCaughtUp!: (e: Error) => void;
  const caughtUp = new Promise<void>((resolve, reject) => {
    resolveCaughtUp = resolve;
    rejectCaughtUp = reject;
  });
  caughtUp.catch(() => undefined);
  let exited = false;
  const gone = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      exited = true;
      const err = new Error(`the sandbox's layer-2 thread ended (exit code ${code})`);
      rejectOpened(err);
      rejectCaughtUp(err);
      resolve();
    });
  });
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  worker.on('error', (err) => log.error({ err }, "sandbox: the layer-2 chains' thread failed"));
  worker.on('message', (m: FromL2Thread) => {
    switch (m.type) {
      case 'log':
        relay(log, m.line);
        return;
      case 'opened':
        for (const s of m.statuses) statuses.set(s.chain, s);
        resolveOpened(m);
        return;
      case 'open-failed':
        rejectOpened(new Error(m.message));
        return;
      case 'status':
        for (const s of m.statuses) statuses.set(s.chain, s);
        return;
      case 'caught-up':
        resolveCaughtUp();
        return;
      case 'catch-up-failed':
        rejectCaughtUp(new Error(m.message));
        return;
      case 'stopped':
        resolveStopped();
        return;
    }
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (exited) return;
      worker.postMessage({ type: 'stop' } satisfies ToL2Thread);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          log.warn({ ms: STOP_TIMEOUT_MS }, 'sandbox: the layer-2 chains did not stop in time; ending their thread');
          resolve();
        }, STOP_TIMEOUT_MS);
      });
      await Promise.race([stopped, gone, timeout]);
      clearTimeout(timer);
      await worker.terminate();
    })();
    return stopping;
  };
  let ready: Extract<FromL2Thread, { type: 'opened' }>;
  try {
    ready = await opened;
  } catch (err) {
    await stop();
    throw err;
  }
  const chains: L2ChainView[] = ready.chains.map((c) => ({ ...c, status: () => statuses.get(c.kind)! }));
  return { chains, config: ready.config, caughtUp, stop };
}
