/**
 * A worker process for the HTTP venues' SIGKILL tests (dYdX's indexer, Synthetix's info API): opens the sources from
 * configuration keys (the parent's stand-in URLs) through the runtime's `openSources`, at the parent's fixed instant,
 * and runs the derivatives jobs CHILD_JOBS names, one after another, each again while it reports more to do, on a
 * SQLite file, so that the parent can kill it between or inside its reads.
 * Env: CHILD_DB (SQLite file), CHILD_ENV (JSON file: `keys`, `nowMs`, `jobs`).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { derivativesArea } from '../../src/areas/derivatives/index.js';
import { loadConfig } from '../../src/config/index.js';
import { EMPTY_BOOK } from '../../src/registry/address-book.js';
import { registry } from '../../src/registry/index.js';
import { openSources } from '../../src/runtime/sources.js';
import { openServiceStore, TestClock } from '../helpers.js';

const store = openServiceStore({ sqliteFile: process.env.CHILD_DB! });
await store.migrate();
const setup = JSON.parse(readFileSync(process.env.CHILD_ENV!, 'utf8')) as {
  keys: Record<string, string>;
  nowMs: number;
  jobs: string[];
};
const clock = new TestClock(setup.nowMs);
const logger = pino({ level: 'warn' });
const config = loadConfig({ PUBLISH_EVERY_SECONDS: '0', ...setup.keys });
const sources = openSources(config, {
  role: 'worker',
  logger,
  labels: new Map(),
  client: { clock, sleep: async (ms: number) => clock.advance(ms / 1000) },
});
const jobs = derivativesArea.jobs({ config, registry, book: EMPTY_BOOK, sources });
process.stdout.write('ready\n');
for (const name of setup.jobs) {
  const job = jobs.find((j) => j.name === name);
  if (!job) throw new Error(`venue-child: no job ${name}`);
  for (let more = true; more; ) {
    more = false;
    await job.run({
      store,
      clock,
      log: logger,
      signal: new AbortController().signal,
      attempt: 1,
      notifyPublished: async () => {},
      moreToDo: () => {
        more = true;
      },
    });
  }
}
process.stdout.write('done\n');
await store.close();
