/**
 * A worker process for the SIGKILL tests: runs an area's ingest job (`dex.ingest` unless CHILD_JOB names another,
 * e.g. `stablecoin.ingest`) on a SQLite file against a sandbox chain, in many small ranges, so the parent can kill it
 * mid-ingest when the job's checkpoint has moved.
 * Env: CHILD_DB (SQLite file), CHILD_ENV (JSON file: the world's manifest and RPC URL, and the range limit),
 * CHILD_JOB (optional).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { AREAS } from '../../src/areas/index.js';
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
const jobName = process.env.CHILD_JOB ?? 'dex.ingest';
const area = AREAS.find((a) => a.id === jobName.split('.')[0]);
const ingestJob = area?.jobs(env).find((j) => j.name === jobName);
if (!ingestJob) throw new Error(`ingest-child: no job ${jobName}`);
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
