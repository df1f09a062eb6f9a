/**
 * A worker process for the SIGKILL test: runs `dex.ingest` on a SQLite file against a sandbox chain, in many small
 * ranges, and reports each committed checkpoint on stdout so the parent knows when to kill it mid-ingest.
 * Env: CHILD_DB (SQLite file), CHILD_ENV (JSON file holding an EvmEnvironment).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { dexJobs } from '../../src/areas/dex/jobs.js';
import { loadConfig } from '../../src/config/index.js';
import { systemClock } from '../../src/core/time.js';
import type { EvmEnvironment } from '../../src/sources/environment.js';
import { openStore } from '../../src/store/db.js';

const store = openStore({ sqliteFile: process.env.CHILD_DB! });
await store.migrate();
const evm = JSON.parse(readFileSync(process.env.CHILD_ENV!, 'utf8')) as EvmEnvironment;
const ingestJob = dexJobs({ config: loadConfig({}), evm }).find((j) => j.name === 'dex.ingest')!;
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
