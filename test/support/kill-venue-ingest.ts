import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '../../src/store/db.js';
import { openServiceStore } from '../helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface KilledVenueIngest {
  /** The SQLite file the killed worker wrote: restart the pipeline on it. */
  readonly dbFile: string;
  /** Whether `killWhen` held before the worker ended by itself (the kill landed mid-ingest). */
  readonly killed: boolean;
  /** The signal the worker died of. */
  readonly signal: NodeJS.Signals | null;
  remove(): void;
}

/**
 * A worker process (`venue-child.ts`) runs the derivatives `jobs` against HTTP sources opened from `keys` (the
 * parent's stand-ins, which outlive it) at the instant `nowMs`, on a fresh SQLite file, and is killed with SIGKILL as
 * soon as `killWhen` (polled every 5 ms, reading what the worker committed) holds: between or inside its reads, as a
 * crashed worker's would be.
 */
export async function killVenueIngest(options: {
  keys: Record<string, string>;
  nowMs: number;
  jobs: readonly string[];
  killWhen: (watcher: Store) => Promise<boolean>;
  timeoutMs: number;
}): Promise<KilledVenueIngest> {
  const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-venue-kill-'));
  const dbFile = path.join(dir, 'kill.sqlite');
  const envFile = path.join(dir, 'env.json');
  writeFileSync(envFile, JSON.stringify({ keys: options.keys, nowMs: options.nowMs, jobs: options.jobs }));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/venue-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, CHILD_DB: dbFile, CHILD_ENV: envFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  let exitedAlready = false;
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => {
      exitedAlready = true;
      resolve(signal);
    }),
  );
  const watcher = openServiceStore({ sqliteFile: dbFile });
  let killed = false;
  try {
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline && !killed && !exitedAlready) {
      await new Promise((r) => setTimeout(r, 5));
      if (await options.killWhen(watcher).catch(() => false)) {
        child.kill('SIGKILL');
        killed = true;
      }
    }
    if (!killed) child.kill('SIGKILL');
    const signal = await exited;
    if (!killed && stderr) throw new Error(`the worker ended before the kill: ${stderr.slice(0, 2000)}`);
    return { dbFile, killed, signal, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await watcher.close();
  }
}
