import { DAY } from '../core/time.js';
import { JobRepository } from '../store/jobs.js';
import type { JobDef } from './types.js';

/** How long job run history is kept. */
const RUN_HISTORY_DAYS = 14;

/** Jobs of the service itself, not of an area. */
export const BUILTIN_JOBS: readonly JobDef[] = [
  {
    name: 'maintenance.prune',
    description: `Deletes job run history older than ${RUN_HISTORY_DAYS} days`,
    everySeconds: 3600,
    async run(ctx) {
      const cutoff = ctx.clock.nowMs() - RUN_HISTORY_DAYS * DAY * 1000;
      const removed = await new JobRepository(ctx.store.db).pruneRuns(cutoff);
      return `removed ${removed} job runs older than ${RUN_HISTORY_DAYS} days`;
    },
  },
];
