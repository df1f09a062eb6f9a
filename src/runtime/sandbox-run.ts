/**
 * `protoscore sandbox run`: the sandbox world (its chains and stand-ins) in a process of its own, without the API or
 * the jobs, kept going on the wall clock. It writes the configuration that points any other process at it, in the
 * ordinary keys (`RPC_URL_<CHAIN>`, the stand-ins' base URLs and credentials, `ADDRESS_BOOK_FILE`: where the
 * world deployed the registry's entry points, and `SANDBOX_STANDINS`: which sources are stand-ins, for `meta.source`), as `DATA_DIR/sandbox/config.json`, a file `CONFIG_FILE` accepts. A
 * `worker`, `serve` or `start` given it opens its sources from those keys as it would for the real services.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config/index.js';
import type { Clock } from '../core/time.js';
import { worldDir } from '../sandbox/world/running.js';
import { writeAddressBookFile, writeJsonFile } from './address-book-file.js';
import { setUpSources } from './sources.js';

/** The files `sandbox run` writes in `DATA_DIR/sandbox/`, removed when it stops. */
export const SANDBOX_CONFIG_FILE = 'config.json';
export const SANDBOX_BOOK_FILE = 'address-book.json';

export interface RunningSandbox {
  /** The keys another process needs (what config.json holds). */
  readonly keys: Readonly<Record<string, string>>;
  /** `DATA_DIR/sandbox/config.json`. */
  readonly configFile: string;
  /** Settles once the world and its other chains have reached the wall clock. */
  readonly caughtUp: Promise<void>;
  /** Saves and stops the world, its chains and the stand-ins; removes the configuration files. Idempotent. */
  stop(): Promise<void>;
}

export async function runSandbox(options: {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly onProgress?: (doneSeconds: number, totalSeconds: number) => void;
}): Promise<RunningSandbox> {
  const { config } = options;
  // The world is what runs when nothing is configured: configured chains or a book file would not be the world's.
  const setup = await setUpSources({
    config,
    role: 'start',
    logger: options.logger,
    clock: options.clock,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const { world, l2, sandboxKeys } = setup;
  if (!world || !sandboxKeys) {
    await setup.close();
    throw new ConfigError(
      'RPC_URL_<CHAIN>',
      '`sandbox run` runs the sandbox world, which stands in for the chains: unset every RPC_URL_<CHAIN> to run it',
    );
  }
  const dir = worldDir(config.dataDir);
  const bookFile = path.join(dir, SANDBOX_BOOK_FILE);
  const configFile = path.join(dir, SANDBOX_CONFIG_FILE);
  const keys = {
    ...sandboxKeys,
    ADDRESS_BOOK_FILE: bookFile,
    SANDBOX_STANDINS: setup.standins.map((s) => s.kind).join(','),
  };
  writeAddressBookFile(bookFile, setup.book);
  writeJsonFile(configFile, keys);
  let stopping: Promise<void> | undefined;
  return {
    keys,
    configFile,
    caughtUp: Promise.all([world.caughtUp, l2?.caughtUp]).then(() => undefined),
    stop() {
      stopping ??= (async () => {
        // Removed first: a process started from here on must not be pointed at ports about to close.
        rmSync(configFile, { force: true });
        rmSync(bookFile, { force: true });
        await setup.close();
      })();
      return stopping;
    },
  };
}
