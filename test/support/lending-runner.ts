import { lendingJobs } from '../../src/areas/lending/jobs.js';
import { loadConfig } from '../../src/config/index.js';
import type { EvmEnvironment } from '../../src/sources/environment.js';
import type { Store } from '../../src/store/db.js';
import type { TestClock } from '../helpers.js';
import { jobRunner } from './dex-world.js';

/** The lending jobs for an environment, runnable one by one against a store (as dexJobRunner for the DEX). */
export function lendingJobRunner(env: EvmEnvironment, store: Store, clock: TestClock, onPublished = async () => {}) {
  const run = jobRunner(lendingJobs({ config: loadConfig({}), evm: env }), store, clock, onPublished);
  return {
    run,
    async all() {
      await this.run('lending.ingest');
      await this.run('lending.snapshot');
      return this.run('lending.compute');
    },
  };
}
