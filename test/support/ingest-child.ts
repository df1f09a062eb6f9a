/**
 * A worker process for the SIGKILL test: runs `dex.ingest` on a SQLite file against a sandbox chain, in many small
 * ranges, and reports each committed checkpoint on stdout so the parent knows when to kill it mid-ingest.
 * Env: CHILD_DB (SQLite file), CHILD_ENV (JSON file: the world's manifest and RPC URL, and the range limit).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { dexArea } from '../../src/areas/dex/index.js';
import { systemClock } from '../../src/core/time.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import { openServiceStore } from '../helpers.js';
import { sandboxEnv } from './areas.js';

const store = openServiceStore({ sqliteFile: process.env.CHILD_DB! });
await store.migrate();
const world = JSON.parse(readFileSync(process.env.CHILD_ENV!, 'utf8')) as {
  manifest: WorldManifest;
  rpcUrl: string;
  maxBlockRange: number;
};
const env = sandboxEnv(world, { endpoint: { maxBlockRange: world.maxBlockRange } });
const ingestJob = dexArea.jobs(env).find((j) => j.name === 'dex.ingest')!;
process.stdout.write('ready\n');
await ingestJob.run({
  store,
  clock: systemClock,
  log: pino({ level: 'warn' }),
  signal: new AbortController().signal,
  attempt: 1,
  notifyPublished: async () => {},
});
process.stdout.write('done\n');
await store.close();
