import { unlinkSync } from 'node:fs';
import { mkdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Clock, HOUR, systemClock } from '../../core/time.js';
import { type Anvil, startAnvil } from '../chain/anvil.js';
import type { SimulationState, WorldManifest } from './manifest.js';
import { findRunningWorld, RUNNING_FILE, type RunningWorld, type WorldPhase, worldDir } from './running.js';
import {
  type Block,
  checkWorldConfig,
  fromJson,
  loadChain,
  readSaved,
  removeLeftovers,
  type SavedWorld,
  sha256,
  toJson,
  WORLD_FILE,
  WORLD_FORMAT,
  WorldMismatchError,
  writeAtomic,
} from './saved.js';
import { HourlyHistory, type WorldView, worldView } from './view.js';

/**
 * The sandbox world: anvil plus the deployed protocols plus the market scenario, kept in step with a clock.
 *
 * - First start: genesis `days` before the current hour, deploy, simulate hourly blocks up to the last whole hour,
 *   one-minute blocks up to the last whole minute, then blocks of `blockSeconds` up to now, save. The minute step
 *   keeps the head close to the history: anvil answers `eth_call` only at its last 500 blocks (chain/anvil.ts), and the
 *   service reads state at past day ends (lending snapshots, exchange rates) right after a first start. Up to 719
 *   five-second blocks for the current hour pushed every day end out of that window; now at most 59 + 11 blocks
 *   follow the last hourly one.
 * - Live: every `blockSeconds` of wall time, simulate up to now (so `as_of` and freshness are real), save every
 *   `saveEveryMs` and on stop. A restart after a pause fills the missed time the same way as a first start.
 * - Saved in `<dataDir>/sandbox/`: `chain-<block>-<hash>.json.gz` (anvil's own dump, history included) and
 *   `world.json` (manifest, scenario state, and the head block the dump holds). A pair is consistent by
 *   construction: the dump gets a new name and is complete on disk before `world.json` names it, both written
 *   atomically (temp file, fsync, rename); a crash at any point leaves the previous pair in place. Loading
 *   checks the dump's hash and the head block anyway (saved.ts).
 * - `running.json` says a world is up (for `protoscore sandbox info`), and is removed on stop (running.ts).
 */

/** Half of Ethereum's finality depth in the registry (64): see `saveEveryMs`. */
const UNSAVED_BLOCKS_AT_MOST = 32;

/** One-minute blocks fill the part of a catch-up shorter than an hour (see the file comment). */
const MINUTE = 60;

/** The hours the world closed (view.ts), beside `world.json`. */
const HISTORY_FILE = 'history.json';

/** Simulated hours per `simulate` call during a catch-up: bounds the work lost if the process dies mid-way. */
const CATCH_UP_CHUNK_HOURS = 24;

export interface WorldOptions {
  /** The service's data directory; the world lives in `<dataDir>/sandbox/`. */
  readonly dataDir: string;
  readonly seed: number;
  /** Simulated history of a new world, in days (a saved world keeps its own). */
  readonly days: number;
  /** Block interval in live mode and for the part of a catch-up shorter than an hour. */
  readonly blockSeconds: number;
  /** Activity multiplier of the scenario. */
  readonly scale: number;
  /** A new world deploys MakerDAO and Liquity too (`SANDBOX_STABLECOINS`; a saved world keeps what it has). */
  readonly stablecoins?: boolean;
  readonly log: Logger;
  /** The world's time (tests pass their own); timers still run on the real one. */
  readonly clock?: Clock;
  /** Keep the chain in step with the clock after catching up (default true). */
  readonly live?: boolean;
  /**
   * Wall-time interval between saves while running. Default: 60 s, or less with short blocks, so that the
   * blocks a crash loses (a restart rebuilds that time differently) stay well within the 64 blocks an indexer
   * treats as not yet final: they then look like an ordinary reorg.
   */
  readonly saveEveryMs?: number;
  /** Catch-up progress in simulated seconds. */
  readonly onProgress?: (doneSeconds: number, totalSeconds: number) => void;
  /** The deployment and the scenario (tests may pass light stand-ins). Default: deploy.ts and scenario.ts of this folder. */
  readonly driver?: WorldDriver;
  /**
   * The first instant of a new world's history (`plannedGenesisTimestamp`), so that what shares its genesis (the
   * layer-2 chains) can open while the world does. Used only when the data directory holds no save; default: `days`
   * before the current hour.
   */
  readonly genesisTimestamp?: number;
}

/** Throws if another process runs the world of `dataDir`: two would fight over the same chains and saves. */
export async function refuseRunningWorld(dataDir: string): Promise<void> {
  const other = await findRunningWorld(dataDir);
  if (other.running) {
    throw new Error(
      `a sandbox world is already running in ${worldDir(dataDir)} (pid ${other.running.pid}); stop it first`,
    );
  }
}

/**
 * The genesis timestamp of the world of `dataDir`: the saved world's, or the one a new world gets now (`days` before
 * the current hour, on the hour). Throws `WorldMismatchError` as `openWorld` would for a save of another seed or
 * scale. The save is not checked further: if it proves unusable when the world opens, the new world takes its own
 * timestamp, which `World.manifest.genesisTimestamp` tells.
 */
export async function plannedGenesisTimestamp(options: {
  readonly dataDir: string;
  readonly seed: number;
  readonly scale: number;
  readonly days: number;
  readonly clock?: Clock;
}): Promise<number> {
  const dir = worldDir(options.dataDir);
  let saved: Partial<SavedWorld> | undefined;
  try {
    saved = fromJson<Partial<SavedWorld>>(await readFile(path.join(dir, WORLD_FILE), 'utf8'));
  } catch {
    // No save, or an unreadable one: the world will be new.
  }
  if (saved && Number.isSafeInteger(saved.genesis_timestamp)) {
    checkWorldConfig(dir, saved as SavedWorld, options);
    return saved.genesis_timestamp!;
  }
  return newGenesisTimestamp((options.clock ?? systemClock).nowMs(), options.days);
}

/** A new world's history starts `days` before the current hour. */
function newGenesisTimestamp(nowMs: number, days: number): number {
  return Math.floor(Math.floor(nowMs / 1000) / HOUR) * HOUR - days * 86_400;
}

export interface WorldDriver {
  deployWorld(
    rpcUrl: string,
    opts: { seed: number; startTimestamp: number; scale?: number; stablecoins?: boolean },
  ): Promise<{ manifest: WorldManifest; state: SimulationState }>;
  simulate(
    rpcUrl: string,
    manifest: WorldManifest,
    state: SimulationState,
    untilTimestamp: number,
    opts: {
      stepSeconds: number;
      scale?: number;
      signal?: AbortSignal;
      onProgress?: (done: number, total: number) => void;
      onStep?: (state: SimulationState) => void;
    },
  ): Promise<SimulationState>;
}

export interface WorldStatus {
  readonly rpc_url: string;
  readonly chain_id: number;
  readonly seed: number;
  readonly phase: WorldPhase;
  /** Timestamp (Unix seconds) the scenario has reached: the newest block's time. */
  readonly simulated_until: number;
}

export interface World {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly manifest: WorldManifest;
  /** `<dataDir>/sandbox`. */
  readonly dir: string;
  /** The newest block number. */
  head(): Promise<number>;
  /** Settles once the chain has reached the clock's "now" after opening; rejects if that failed. */
  readonly caughtUp: Promise<void>;
  /** Brings the chain to the clock's "now" (what the live timer does every `blockSeconds`). */
  sync(): Promise<void>;
  /**
   * What stand-ins see of the world (view.ts): its manifest, its contracts, its hours so far; `others`: the manifests
   * of the protocols the layer-2 chains host, seen beside it.
   */
  view(others?: readonly WorldManifest[]): WorldView;
  /** Adds fields (e.g. a stand-in's `github_api_url`) to running.json, which `sandbox info` shows. */
  announce(fields: Readonly<Record<string, unknown>>): Promise<void>;
  status(): WorldStatus;
  /** Saves, stops the timer and anvil, removes running.json. Idempotent. */
  stop(): Promise<void>;
}

/** Directories with a world open in this process: a second open would fight over the same files. */
const openDirs = new Set<string>();

async function defaultDriver(): Promise<WorldDriver> {
  // Loaded on demand: the deployment pulls in large contract artifacts that a reload or `sandbox info` never needs.
  return {
    deployWorld: async (...args) => (await import('./deploy.js')).deployWorld(...args),
    simulate: async (...args) => (await import('./scenario.js')).simulate(...args),
  };
}

/**
 * Opens the world of `dataDir`: loads the saved one (checked) or creates one, and starts catching up with the
 * clock. Resolves as soon as the chain answers with the protocols deployed (`caughtUp` tells when history is
 * complete).
 */
export async function openWorld(options: WorldOptions): Promise<World> {
  const { log, seed, scale, blockSeconds } = options;
  const clock = options.clock ?? systemClock;
  const nowSeconds = () => Math.floor(clock.nowMs() / 1000);
  const live = options.live ?? true;
  const saveEveryMs = options.saveEveryMs ?? Math.min(60_000, UNSAVED_BLOCKS_AT_MOST * blockSeconds * 1000);
  const dir = worldDir(options.dataDir);
  if (!Number.isInteger(blockSeconds) || blockSeconds < 1) throw new Error('blockSeconds must be a positive integer');

  if (openDirs.has(dir)) throw new Error(`a sandbox world is already open in ${dir}`);
  await mkdir(dir, { recursive: true });
  await refuseRunningWorld(options.dataDir);
  openDirs.add(dir);

  const opened = Date.now();
  const cacheDir = path.join(dir, 'anvil-cache');
  let anvil: Anvil | undefined;
  try {
    await rm(cacheDir, { recursive: true, force: true });
    let loaded: { manifest: WorldManifest; state: SimulationState } | undefined;
    let genesisTimestamp = 0;
    let nodeGenesis: SavedWorld['node_genesis'] | undefined;
    let lastSaved: { number: number; hash: string; state: string } | undefined;
    let hadSave = false;
    try {
      const found = await readSaved(dir, options);
      hadSave = found !== undefined;
      await removeLeftovers(dir, found?.saved.chain_file, true);
      if (found) {
        const { saved, dump } = found;
        anvil = await loadChain(dir, dump, saved, cacheDir, log);
        loaded = { manifest: saved.manifest, state: saved.state };
        genesisTimestamp = saved.genesis_timestamp;
        nodeGenesis = saved.node_genesis;
        lastSaved = { number: saved.head.number, hash: saved.head.hash, state: toJson(saved.state) };
        log.info(
          { block: saved.head.number, savedAt: saved.saved_at, ms: Date.now() - opened },
          'sandbox: saved world loaded',
        );
      }
    } catch (err) {
      if (err instanceof WorldMismatchError) throw err;
      // A damaged save is no reason to refuse to start: keep it aside for inspection and begin anew.
      hadSave = true;
      await anvil?.stop();
      anvil = undefined;
      const aside = path.join(dir, `${WORLD_FILE}.invalid-${Date.now()}`);
      log.warn({ err: (err as Error).message, kept: aside }, 'sandbox: saved world unusable, starting a new one');
      await rename(path.join(dir, WORLD_FILE), aside).catch(() => undefined);
      await removeLeftovers(dir, undefined, true);
    }

    const driver = options.driver ?? (await defaultDriver());
    if (!anvil || !loaded || !nodeGenesis) {
      // A planned timestamp holds for a data directory without a save; after an unusable one, the history starts anew.
      genesisTimestamp =
        options.genesisTimestamp !== undefined && !hadSave
          ? options.genesisTimestamp
          : newGenesisTimestamp(clock.nowMs(), options.days);
      // The deployment is one block at the grid's first instant, which must come after anvil's genesis block.
      anvil = await startAnvil({ genesisTimestamp: genesisTimestamp - 1, cacheDir, log });
      const block0 = await anvil.request<Block>('eth_getBlockByNumber', ['0x0', false]);
      nodeGenesis = { timestamp: Number(block0.timestamp), hash: block0.hash };
      loaded = await driver.deployWorld(anvil.rpcUrl, {
        seed,
        startTimestamp: genesisTimestamp,
        scale,
        stablecoins: options.stablecoins ?? false,
      });
      log.info({ seed, scale, days: options.days, ms: Date.now() - opened }, 'sandbox: new world deployed');
    }
    const { manifest } = loaded;
    let { state } = loaded;
    // The hours the world closed (view.ts), saved beside it; a world saved before they were kept starts now.
    const historyFile = path.join(dir, HISTORY_FILE);
    let history = new HourlyHistory();
    if (hadSave && lastSaved) {
      try {
        history = new HourlyHistory(fromJson(await readFile(historyFile, 'utf8')));
      } catch {
        // none yet
      }
    }
    history.start(state);
    const genesis = nodeGenesis;
    const node = anvil;

    // ---- running.json ----------------------------------------------------------------------------------------
    const runningFile = path.join(dir, RUNNING_FILE);
    let phase: WorldStatus['phase'] = 'catching-up';
    const announced: Record<string, unknown> = {};
    // Writes in order, so that the newest phase wins; none after the world has stopped, so that a late write
    // cannot bring the file back.
    let runningWrites: Promise<void> = Promise.resolve();
    let runningClosed = false;
    const writeRunning = () => {
      runningWrites = runningWrites.catch(() => undefined).then(() => (runningClosed ? undefined : writeRunningNow()));
      return runningWrites;
    };
    const closeRunning = async () => {
      runningClosed = true;
      await runningWrites.catch(() => undefined);
      await unlink(runningFile).catch(() => undefined);
    };
    const writeRunningNow = () =>
      writeAtomic(
        runningFile,
        `${JSON.stringify(
          {
            rpc_url: node.rpcUrl,
            chain_id: node.chainId,
            pid: process.pid,
            anvil_pid: node.pid,
            watchdog_pid: node.watchdogPid,
            started_at: new Date(opened).toISOString(),
            phase,
            seed,
            genesis_timestamp: genesisTimestamp,
            ...announced,
            manifest,
          } satisfies RunningWorld,
          null,
          2,
        )}\n`,
      );
    // If the process ends without stop() (process.exit elsewhere, an uncaught error), the file must not claim a
    // running world; SIGKILL cannot be caught, which is why readers also check the pid and the RPC URL.
    const removeRunningSync = () => {
      try {
        unlinkSync(runningFile);
      } catch {
        // Already gone.
      }
    };
    process.on('exit', removeRunningSync);
    await writeRunning();

    // ---- one writer: simulation steps and saves never overlap ------------------------------------------------
    let queue: Promise<unknown> = Promise.resolve();
    const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
      const run = queue.then(fn);
      queue = run.catch(() => undefined);
      return run;
    };
    const abort = new AbortController();
    // False after a simulation step failed or was cut short: the chain may then hold half a step that the state
    // does not know about, and such a pair must never be saved.
    let consistent = true;
    let lastSaveAt = Date.now();

    const save = async (why: string) => {
      if (!consistent) return;
      const head = await node.request<Block>('eth_getBlockByNumber', ['latest', false]);
      const stateJson = toJson(state);
      if (lastSaved && lastSaved.hash === head.hash && lastSaved.state === stateJson) return;
      const started = Date.now();
      const dump = await node.dumpState();
      const after = await node.request<Block>('eth_getBlockByNumber', ['latest', false]);
      if (after.hash !== head.hash) {
        // Only this module mines; something else sent a transaction. Skip rather than save a mismatched pair.
        log.warn({ before: head.number, after: after.number }, 'sandbox: chain moved during save, not saved');
        return;
      }
      const chainFile = `chain-${Number(head.number)}-${head.hash.slice(2, 10)}.json.gz`;
      await writeAtomic(path.join(dir, chainFile), dump);
      const saved: SavedWorld = {
        format: WORLD_FORMAT,
        seed,
        scale,
        chain_id: node.chainId,
        genesis_timestamp: genesisTimestamp,
        node_genesis: genesis,
        saved_at: new Date(clock.nowMs()).toISOString(),
        head: { number: Number(head.number), hash: head.hash, timestamp: Number(head.timestamp) },
        chain_file: chainFile,
        chain_sha256: sha256(dump),
        manifest,
        state,
      };
      await writeAtomic(historyFile, toJson(history));
      await writeAtomic(path.join(dir, WORLD_FILE), toJson(saved));
      await removeLeftovers(dir, chainFile, false);
      lastSaved = { number: Number(head.number), hash: head.hash, state: stateJson };
      lastSaveAt = Date.now();
      log.info(
        { why, block: Number(head.number), bytes: dump.length, ms: Date.now() - started },
        'sandbox: world saved',
      );
    };

    const simulateTo = async (until: number, stepSeconds: number, progress?: (done: number) => void) => {
      consistent = false;
      state = await driver.simulate(node.rpcUrl, manifest, state, until, {
        stepSeconds,
        scale,
        signal: abort.signal,
        onStep: (s: SimulationState) => history.record(s),
        ...(progress ? { onProgress: (done: number) => progress(done * stepSeconds) } : {}),
      });
      consistent = true;
    };

    /**
     * Whole missed hours as hourly blocks, whole minutes as one-minute blocks, then the rest in blocks of
     * `blockSeconds` (see the file comment).
     */
    const advance = async (reportProgress: boolean) => {
      const target = nowSeconds();
      const from = state.lastTimestamp;
      const total = Math.max(0, target - from);
      const report = reportProgress && options.onProgress ? options.onProgress : undefined;
      while (!abort.signal.aborted && target - state.lastTimestamp >= HOUR) {
        const hours = Math.min(CATCH_UP_CHUNK_HOURS, Math.floor((target - state.lastTimestamp) / HOUR));
        const base = state.lastTimestamp - from;
        await simulateTo(state.lastTimestamp + hours * HOUR, HOUR, report && ((done) => report(base + done, total)));
        if (Date.now() - lastSaveAt >= saveEveryMs) await save('periodic');
      }
      // The part shorter than an hour: whole minutes as one-minute blocks, then the rest in blocks of blockSeconds.
      for (const step of blockSeconds < MINUTE ? [MINUTE, blockSeconds] : [blockSeconds]) {
        const steps = Math.floor((target - state.lastTimestamp) / step);
        if (abort.signal.aborted || steps < 1) continue;
        const base = state.lastTimestamp - from;
        await simulateTo(state.lastTimestamp + steps * step, step, report && ((done) => report(base + done, total)));
      }
      report?.(total, total);
    };

    // ---- catch-up, then live ---------------------------------------------------------------------------------
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      const started = Date.now();
      exclusive(async () => {
        await advance(false);
        if (Date.now() - lastSaveAt >= saveEveryMs) await save('periodic');
      })
        .catch((err: unknown) => {
          if (abort.signal.aborted) return;
          // The chain may now hold part of a step the state does not know: going on would build on that.
          // The service keeps serving what it has; a restart resumes from the last save.
          phase = 'failed';
          log.error({ err }, 'sandbox: live step failed; the chain stays where it is until a restart');
          writeRunning().catch(() => undefined);
        })
        .finally(() => {
          if (abort.signal.aborted || phase !== 'live') return;
          // Keep to the block interval on average even when a step takes a while.
          timer = setTimeout(tick, Math.max(50, blockSeconds * 1000 - (Date.now() - started)));
          timer.unref();
        });
    };

    const catchUpStarted = Date.now();
    const headBefore = Number(await node.request<string>('eth_blockNumber'));
    const caughtUp = exclusive(async () => {
      await advance(true);
      if (abort.signal.aborted) return;
      const head = Number(await node.request<string>('eth_blockNumber'));
      // A reload that only had a few blocks to add leaves the save to the periodic one: a dump of a big world
      // takes seconds, and so few unsaved blocks are harmless (see `saveEveryMs`).
      if (!lastSaved || head - lastSaved.number >= UNSAVED_BLOCKS_AT_MOST) await save('caught up');
      const blocks = head - headBefore;
      log.info({ blocks, ms: Date.now() - catchUpStarted }, 'sandbox: caught up with the clock');
      phase = live ? 'live' : 'idle';
      await writeRunning();
      if (live) {
        timer = setTimeout(tick, blockSeconds * 1000);
        timer.unref();
      }
    });
    caughtUp.catch((err: unknown) => {
      if (abort.signal.aborted) return;
      phase = 'failed';
      log.error({ err }, 'sandbox: catching up failed');
      writeRunning().catch(() => undefined);
    });

    node.exited.then(() => {
      if (abort.signal.aborted) return;
      phase = 'failed';
      if (timer) clearTimeout(timer);
      closeRunning();
    });

    let stopping: Promise<void> | undefined;
    const world: World = {
      rpcUrl: node.rpcUrl,
      chainId: node.chainId,
      manifest,
      dir,
      head: async () => Number(await node.request<string>('eth_blockNumber')),
      caughtUp,
      sync: () =>
        exclusive(async () => {
          if (abort.signal.aborted) throw new Error('the sandbox world is stopped');
          await advance(false);
        }),
      view: (others = []) => worldView([manifest, ...others], history),
      announce: async (fields) => {
        Object.assign(announced, fields);
        if (!abort.signal.aborted) await writeRunning();
      },
      status: () => ({
        rpc_url: node.rpcUrl,
        chain_id: node.chainId,
        seed,
        phase,
        simulated_until: state.lastTimestamp,
      }),
      stop: () => {
        stopping ??= (async () => {
          abort.abort();
          if (timer) clearTimeout(timer);
          // Let a running step finish (or see the abort), then save what is consistent.
          await queue;
          try {
            if (phase !== 'failed') await exclusive(() => save('stop'));
          } catch (err) {
            log.error({ err }, 'sandbox: saving on stop failed');
          }
          phase = 'stopped';
          await node.stop();
          await closeRunning();
          process.removeListener('exit', removeRunningSync);
          openDirs.delete(dir);
          log.info('sandbox: world stopped');
        })();
        return stopping;
      },
    };
    return world;
  } catch (err) {
    await anvil?.stop();
    openDirs.delete(dir);
    throw err;
  }
}
