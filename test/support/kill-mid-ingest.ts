import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCheckpoint } from '../../src/store/checkpoints.js';
import { openServiceStore } from '../helpers.js';
import type { WorldAccess } from './areas.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface KilledIngest {
  /** The SQLite file the killed worker wrote: restart the pipeline on it. */
  readonly dbFile: string;
  /** The block the checkpoint had reached when the worker was killed (undefined: it never passed `afterBlock`). */
  readonly killedAt: number | undefined;
  /** The signal the worker died of. */
  readonly signal: NodeJS.Signals | null;
  /** Removes the file's directory. */
  remove(): void;
}

/**
 * A worker process (`ingest-child.ts`) runs `job` on a fresh SQLite file against the world in ranges of 2 blocks,
 * each committed on its own, and is killed with SIGKILL as soon as the checkpoint `checkpointKey` passes
 * `afterBlock`: the kill lands between or inside ranges, as a crashed worker's would (the SIGKILL fault tests).
 */
export async function killMidIngest(
  world: WorldAccess,
  options: { job: string; checkpointKey: string; afterBlock: number; timeoutMs: number },
): Promise<KilledIngest> {
  const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-kill-'));
  const dbFile = path.join(dir, 'kill.sqlite');
  const envFile = path.join(dir, 'env.json');
  writeFileSync(envFile, JSON.stringify({ manifest: world.manifest, rpcUrl: world.rpcUrl, maxBlockRange: 2 }));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/ingest-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, CHILD_DB: dbFile, CHILD_ENV: envFile, CHILD_JOB: options.job },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const watcher = openServiceStore({ sqliteFile: dbFile });
  let killedAt: number | undefined;
  try {
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline && killedAt === undefined) {
      await new Promise((r) => setTimeout(r, 15));
      const cp = await readCheckpoint<{ block: number }>(watcher.db, options.checkpointKey).catch(() => undefined);
      if (cp && cp.block > options.afterBlock) {
        child.kill('SIGKILL');
        killedAt = cp.block;
      }
    }
    if (killedAt === undefined) child.kill('SIGKILL');
    return { dbFile, killedAt, signal: await exited, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await watcher.close();
  }
}
