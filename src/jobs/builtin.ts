import { DAY } from '../core/time.js';
import { DatasetRepository } from '../store/datasets.js';
import { JobRepository } from '../store/jobs.js';
import type { JobDef } from './types.js';

/** How long job run history, and the record of past publications, are kept. */
const RUN_HISTORY_DAYS = 14;

/** Jobs of the service itself, not of an area. */
export const BUILTIN_JOBS: readonly JobDef[] = [
  {
    name: 'maintenance.prune',
    description: `Deletes job run history and records of past publications older than ${RUN_HISTORY_DAYS} days, and truncates the database's write-ahead log`,
    everySeconds: 3600,
    async run(ctx) {
      const cutoff = ctx.clock.nowMs() - RUN_HISTORY_DAYS * DAY * 1000;
      const runs = await new JobRepository(ctx.store.db).pruneRuns(cutoff);
      const publications = await new DatasetRepository(ctx.store.db).prunePublications(Math.floor(cutoff / 1000));
      const compacted = await ctx.store.compact();
      return `removed ${runs} job runs and ${publications} publication records older than ${RUN_HISTORY_DAYS} days; ${compacted}`;
    },
  },
];
