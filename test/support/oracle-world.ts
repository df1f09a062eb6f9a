import pino from 'pino';
import { oraclesJobs } from '../../src/areas/oracles/jobs.js';
import { loadConfig } from '../../src/config/index.js';
import type { JobContext, JobDef } from '../../src/jobs/types.js';
import type { EvmEnvironment } from '../../src/sources/environment.js';
import type { Store } from '../../src/store/db.js';
import type { TestClock } from '../helpers.js';

/** The oracle jobs for an environment, runnable one by one against a store (as dexJobRunner for the DEX). */
export function oracleJobRunner(env: EvmEnvironment, store: Store, clock: TestClock, onPublished = async () => {}) {
  const jobs = new Map<string, JobDef>(oraclesJobs({ config: loadConfig({}), evm: env }).map((j) => [j.name, j]));
  const ctx = (signal = new AbortController().signal): JobContext => ({
    store,
    clock,
    log: pino({ level: 'warn' }),
    signal,
    attempt: 1,
    notifyPublished: onPublished,
  });
  return {
    run: (name: string, signal?: AbortSignal) => {
      const job = jobs.get(name);
      if (!job) throw new Error(`no job ${name}`);
      return job.run(ctx(signal));
    },
    async all() {
      await this.run('oracles.ingest');
      return this.run('oracles.compute');
    },
  };
}
