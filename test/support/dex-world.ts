import pino from 'pino';
import { dexJobs } from '../../src/areas/dex/jobs.js';
import { loadConfig } from '../../src/config/index.js';
import type { JobContext, JobDef } from '../../src/jobs/types.js';
import { openWorld, type World } from '../../src/sandbox/world/world.js';
import { type EvmEnvironment, environmentFromSandbox } from '../../src/sources/environment.js';
import type { Store } from '../../src/store/db.js';
import { TestClock } from '../helpers.js';
import { makeTempDir } from './temp-dirs.js';

/**
 * A small seeded sandbox world for end-to-end tests, and the DEX jobs bound to it. The world is not live: the
 * test clock decides "now", so every run of a test sees the same chain.
 */
export interface TestWorld {
  readonly world: World;
  readonly env: EvmEnvironment;
  readonly clock: TestClock;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** 2026-11-20 14:00 UTC: a fixed "now" for the small world. */
export const WORLD_NOW_MS = Date.UTC(2026, 10, 20, 14, 0, 0);

export async function smallWorld(options: { days?: number; scale?: number; seed?: number } = {}): Promise<TestWorld> {
  const temp = makeTempDir('protoscore-world-');
  const dataDir = temp.path;
  const clock = new TestClock(WORLD_NOW_MS);
  const world = await openWorld({
    dataDir,
    seed: options.seed ?? 7,
    days: options.days ?? 5,
    blockSeconds: 3600,
    scale: options.scale ?? 0.3,
    log: pino({ level: 'warn' }),
    clock,
    live: false,
  });
  await world.caughtUp;
  return {
    world,
    env: environmentFromSandbox(world.manifest, world.rpcUrl),
    clock,
    dataDir,
    close: async () => {
      await world.stop();
      temp.remove();
    },
  };
}

/** Jobs run one by one against a store with a test context (each area's runner below adds its order). */
export function jobRunner(defs: readonly JobDef[], store: Store, clock: TestClock, onPublished = async () => {}) {
  const jobs = new Map<string, JobDef>(defs.map((j) => [j.name, j]));
  const ctx = (signal = new AbortController().signal): JobContext => ({
    store,
    clock,
    log: pino({ level: 'warn' }),
    signal,
    attempt: 1,
    notifyPublished: onPublished,
  });
  return (name: string, signal?: AbortSignal) => {
    const job = jobs.get(name);
    if (!job) throw new Error(`no job ${name}`);
    return job.run(ctx(signal));
  };
}

/** The DEX jobs for an environment, runnable one by one against a store. */
export function dexJobRunner(env: EvmEnvironment, store: Store, clock: TestClock, onPublished = async () => {}) {
  const run = jobRunner(dexJobs({ config: loadConfig({}), evm: env }), store, clock, onPublished);
  return {
    run,
    async all() {
      await this.run('dex.ingest');
      await this.run('prices.hourly');
      return this.run('dex.compute');
    },
  };
}
