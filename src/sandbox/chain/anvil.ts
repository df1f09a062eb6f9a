import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import { constants } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { lowerProcessPriority } from './priority.js';
import { startWatchdog, type Watchdog } from './watchdog.js';

/**
 * anvil, the local EVM node of the sandbox, as a child process the service owns. The binary comes from npm
 * (`@foundry-rs/anvil-<platform>`); we spawn it directly rather than through `node_modules/.bin/anvil`, whose
 * Node wrapper forwards only SIGINT/SIGTERM, and in its own process group, so that killing the group kills it
 * and nothing else. No anvil may outlive the service, however the service ends:
 * - `stop()` (normal shutdown): SIGTERM, then SIGKILL after a grace period;
 * - process `exit` (including `process.exit()` and uncaught errors): SIGKILL, synchronously;
 * - SIGINT/SIGTERM/SIGHUP when nothing else handles them: SIGKILL, then the signal's default action;
 * - SIGKILL of the service or a crash of Node itself: the watchdog (see watchdog.ts).
 */

/** anvil's own default chain id, kept: it marks the chain as a development chain to every tool (and to us). */
export const SANDBOX_CHAIN_ID = 31337;

/**
 * Block gas limit: a simulated hour is mined as one block holding all of its transactions, so the limit must
 * be far above mainnet's (a busy hour at a large scale is thousands of swaps of ~150k gas). The scenario sets
 * the same value over RPC (`ChainSession.prepareNode`, session.ts); here it also applies to the genesis block and to any other use of anvil.
 */
const BLOCK_GAS_LIMIT = 10_000_000_000n;

export interface AnvilOptions {
  /**
   * Timestamp of the genesis block (Unix seconds). When loading a state, pass the loaded chain's genesis time:
   * anvil builds its genesis block before it loads the state, and one that differs from the loaded one stays
   * in the chain's storage as a second block 0 (which block 0 then answers depends on hash-map order, and every
   * further dump and reload adds one more).
   */
  readonly genesisTimestamp?: number;
  /** A state written by `anvil_dumpState` (uncompressed JSON), history included. */
  readonly loadStateFile?: string;
  /**
   * Where anvil may write historical states it evicts from memory. We ask it to persist none (see the flags),
   * but point it at a directory we own so that nothing ever lands in `~/.foundry`.
   */
  readonly cacheDir?: string;
  readonly chainId?: number;
  /** `manual`: blocks only on `evm_mine` (the scenario decides every block and its timestamp). Default `auto`. */
  readonly mining?: 'auto' | 'manual';
  /**
   * Keep anvil's own base fee (1 gwei) and block gas limit (30 M) instead of the sandbox's 0 at start and 10 G: for tests
   * that check the scenario copes with any node, or that want a node as anvil comes. Default false.
   */
  readonly anvilDefaults?: boolean;
  readonly host?: string;
  /** How long to wait for the first RPC answer (loading a big state takes a while). Default 60 s. */
  readonly readyTimeoutMs?: number;
  /** Further flags (e.g. `--optimism`, `--order fifo` for the sandbox's layer-2 chains, src/sandbox/l2/). */
  readonly extraArgs?: readonly string[];
  /** SIGTERM → SIGKILL grace on stop. Default 3 s. */
  readonly stopGraceMs?: number;
  /** Run at a lower CPU priority (priority.ts: the sandbox's background chains). Default false. */
  readonly background?: boolean;
  readonly log?: Logger;
}

export interface AnvilExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Anvil {
  readonly rpcUrl: string;
  readonly port: number;
  readonly pid: number;
  readonly watchdogPid: number;
  readonly chainId: number;
  /** Settles when the process has exited, whatever the reason (stop, crash, killed from outside). */
  readonly exited: Promise<AnvilExit>;
  request<T>(method: string, params?: readonly unknown[], timeoutMs?: number): Promise<T>;
  /** The whole chain (state and history: blocks, transactions, receipts, logs) as gzipped JSON. */
  dumpState(): Promise<Buffer>;
  /** Stops the process (idempotent) and resolves once it has exited. */
  stop(): Promise<void>;
}

export class JsonRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
    this.name = 'JsonRpcError';
  }
}

/** One JSON-RPC call over HTTP. Throws JsonRpcError for an error answer, other errors for transport failures. */
export async function jsonRpc<T>(
  url: string,
  method: string,
  params: readonly unknown[] = [],
  timeoutMs = 30_000,
): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status} from ${url}`);
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new JsonRpcError(method, body.error.code, body.error.message);
  return body.result as T;
}

/** Path of the platform's anvil binary from npm. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
    return path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    throw new Error(`anvil is not installed for ${process.platform}-${process.arch} (npm package ${pkg})`);
  }
}

/** A port that was free a moment ago (the OS picks it). A race with another process is retried by startAnvil. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

// ---- process-wide clean-up of every anvil this process started -------------------------------------------------

const running = new Set<number>();
let hooksInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function killAllNow(): void {
  for (const pid of running) killGroup(pid, 'SIGKILL');
  running.clear();
}

const TERMINATING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function onSignal(signal: NodeJS.Signals): void {
  // A listener of ours alone would swallow the signal and keep the process alive. If the service handles it
  // (runtime.ts closes gracefully, saving the world before exit), leave anvil to that; if nobody does, end the
  // process as the default action would have, but through exit() so that every exit hook runs (anvil's kill
  // here, running.json's removal, log flushing), with the shell's code for death by that signal.
  if (process.listenerCount(signal) > 1) return;
  process.exit(128 + (constants.signals[signal] ?? 0));
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const s of TERMINATING_SIGNALS) process.on(s, onSignal);
}

// ---- starting and stopping ---------------------------------------------------------------------------------------

function argsFor(options: AnvilOptions, port: number): string[] {
  const args = [
    '--host',
    options.host ?? '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(options.chainId ?? SANDBOX_CHAIN_ID),
    '--silent',
    // anvil keeps the last 500 states in memory and by default writes older ones to disk, one full state per
    // block, never removed: gigabytes a day at one block per 5 s. So eth_call works at the last 500 blocks of
    // the running node (and, after a reload, from the loaded head on). Blocks, receipts and logs, which the
    // connectors read, are history and are kept whatever this says. `--prune-history <n>` (anvil 1.7.1, checked
    // 2026-11-28) also keeps them, in memory and in dumps, and keeps only n states in memory: a smaller anvil, but
    // eth_call then fails below the last n blocks, where the first start's hourly blocks are read (day-end snapshots).
    '--max-persisted-states',
    '0',
  ];
  // Base fee 0 for anvil's own block 0: the world's session sets every later block's base fee from its schedule
  // (fees.ts), since blocks of very different fullness (an hour, then 5 seconds) would swing EIP-1559's update. The
  // gas limit fits a whole simulated hour in one block.
  if (!options.anvilDefaults) args.push('--block-base-fee-per-gas', '0', '--gas-limit', String(BLOCK_GAS_LIMIT));
  if (options.cacheDir) args.push('--cache-path', options.cacheDir);
  if (options.mining === 'manual') args.push('--no-mining');
  if (options.genesisTimestamp !== undefined) args.push('--timestamp', String(options.genesisTimestamp));
  if (options.loadStateFile) args.push('--load-state', options.loadStateFile);
  if (options.extraArgs) args.push(...options.extraArgs);
  return args;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const MAX_PORT_ATTEMPTS = 5;

/** Starts anvil on a free port and resolves once it answers `eth_chainId` with the expected id. */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const host = options.host ?? '127.0.0.1';
  const chainId = options.chainId ?? SANDBOX_CHAIN_ID;
  const binary = anvilBinary();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(host);
    try {
      return await launch(binary, options, host, port, chainId);
    } catch (err) {
      // Another process took the port between our probe and anvil's bind: try another one.
      if (err instanceof PortTakenError && attempt < MAX_PORT_ATTEMPTS) continue;
      throw err;
    }
  }
}

class PortTakenError extends Error {}

async function launch(binary: string, options: AnvilOptions, host: string, port: number, chainId: number) {
  installHooks();
  const child: ChildProcess = spawn(binary, argsFor(options, port), {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new Error(`cannot start anvil (${binary}): ${err.message}`);
  }
  // Same tick as the spawn: from here on, even a SIGKILL of this process takes anvil with it.
  const watchdog: Watchdog = startWatchdog(pid);
  running.add(pid);
  child.unref();
  if (options.background) lowerProcessPriority(pid);

  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  (child.stderr as net.Socket | null)?.unref?.();

  let exitInfo: AnvilExit | undefined;
  const exited = new Promise<AnvilExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      running.delete(pid);
      watchdog.release();
      resolve(exitInfo);
    });
  });

  const rpcUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exitInfo) {
        killGroup(pid, 'SIGTERM');
        const grace = setTimeout(() => killGroup(pid, 'SIGKILL'), options.stopGraceMs ?? 3000);
        await exited;
        clearTimeout(grace);
      }
      // The group may hold nothing else, but make sure before the watchdog is let go.
      killGroup(pid, 'SIGKILL');
      running.delete(pid);
      watchdog.release();
    })();
    return stopping;
  };

  const started = Date.now();
  const deadline = started + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exitInfo) {
      await stop();
      const why = stderr.trim() || `exit code ${exitInfo.code}, signal ${exitInfo.signal}`;
      if (/address already in use/i.test(why)) throw new PortTakenError(why);
      throw new Error(`anvil exited during start: ${why}`);
    }
    try {
      const answer = Number(await jsonRpc<string>(rpcUrl, 'eth_chainId', [], 1000));
      if (answer !== chainId) {
        await stop();
        // Not ours: something else answered on the port.
        throw new PortTakenError(`port ${port} answers chain id ${answer}`);
      }
      break;
    } catch (err) {
      if (err instanceof PortTakenError) throw err;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`anvil did not answer on ${rpcUrl} within ${options.readyTimeoutMs ?? 60_000} ms`);
      }
      await sleep(25);
    }
  }
  if (options.loadStateFile) {
    // After --load-state, anvil's clock restarts from the wall clock and it refuses to mine any block older than
    // that: a world saved days ago could not fill the missed time. Set the clock back to the loaded head.
    const head = await jsonRpc<{ timestamp: string }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
    await jsonRpc(rpcUrl, 'evm_setTime', [Number(head.timestamp)]);
  }
  options.log?.debug({ rpcUrl, pid, watchdogPid: watchdog.pid, ms: Date.now() - started }, 'anvil ready');

  exited.then((exit) => {
    if (!stopping) options.log?.error({ ...exit, stderr: stderr.trim() || undefined }, 'anvil exited unexpectedly');
  });

  const request = <T>(method: string, params: readonly unknown[] = [], timeoutMs?: number) =>
    jsonRpc<T>(rpcUrl, method, params, timeoutMs);
  return {
    rpcUrl,
    port,
    pid,
    watchdogPid: watchdog.pid,
    chainId,
    exited,
    request,
    // The answer is the hex of gzipped JSON; a big world is tens of MB of JSON, so allow time.
    dumpState: async () => Buffer.from((await request<string>('anvil_dumpState', [], 300_000)).slice(2), 'hex'),
    stop,
  } satisfies Anvil;
}
