import pino from 'pino';
import type { AreaEnv } from '../../src/areas/kit/module.js';
import { openWorld, type World } from '../../src/sandbox/world/world.js';
import { TestClock } from '../helpers.js';
import { sandboxEnv } from './areas.js';
import { makeTempDir } from './temp-dirs.js';

/**
 * A small seeded sandbox world for end-to-end tests, with the environment a process reading it gets. The world is not live: the
 * test clock decides "now", so every run of a test sees the same chain.
 */
export interface TestWorld {
  readonly world: World;
  /** The environment of a process reading the world (its chain and address book). */
  readonly env: AreaEnv;
  readonly clock: TestClock;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** 2026-11-20 14:00 UTC: a fixed "now" for the small world. */
export const WORLD_NOW_MS = Date.UTC(2026, 10, 20, 14, 0, 0);

export async function smallWorld(
  options: { days?: number; scale?: number; seed?: number; stablecoins?: boolean } = {},
): Promise<TestWorld> {
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
    ...(options.stablecoins ? { stablecoins: true } : {}),
  });
  await world.caughtUp;
  return {
    world,
    env: sandboxEnv(world),
    clock,
    dataDir,
    close: async () => {
      await world.stop();
      temp.remove();
    },
  };
}
