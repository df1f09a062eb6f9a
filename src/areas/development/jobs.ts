import { isoSeconds } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { computeJob, DocumentSet, freshForEvery } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeDevelopment } from './compute.js';
import { DevelopmentIngest } from './ingest.js';
import { DevelopmentRepository } from './repo.js';
import { developmentPaths } from './routes.js';
import { DEVELOPMENT_METHODOLOGY } from './score.js';
import { developmentTargets } from './targets.js';

/**
 * The development area's jobs: `development.ingest` (each subject's repositories from GitHub → facts, one
 * transaction per repository) and `development.compute` (facts → the 5 paths' documents, published at once).
 */
export const DEVELOPMENT_COMPUTATION = 'development.compute';
/** GitHub is read every 10 minutes: a pass over ~130 repositories is ~1300 requests, mostly free 304s. */
const INGEST_EVERY_SECONDS = 600;

export function developmentJobs(env: AreaEnv): JobDef[] {
  const targets = developmentTargets(env);
  if (!targets) return [];
  const { github, subjects } = targets;
  const ingest = new DevelopmentIngest(github, subjects);

  return [
    {
      name: 'development.ingest',
      area: 'development',
      description: `Reads the repositories of ${subjects.length} protocols and chains from GitHub (${github.label ?? github.baseUrl})`,
      everySeconds: INGEST_EVERY_SECONDS,
      maxAttempts: 3,
      backoffMs: 5000,
      run: (ctx) => ingest.run(ctx),
    },
    computeJob({
      name: DEVELOPMENT_COMPUTATION,
      runAfter: ['development.ingest'],
      area: 'development',
      description:
        'Repository records, statistics and development scores of every tracked protocol and chain (5 paths)',
      everySeconds: 30,
      // The same documents as published (as when a repository's failure holds as_of back while the others moved
      // on): nothing is republished, so the version, computed_at and every ETag clients hold stay valid.
      keepIdentical: true,
      inputs: (ctx) => new DevelopmentRepository(ctx.store.db).computeInputs(),
      load: (ctx, inputs) => new DevelopmentRepository(ctx.store.db).computeInput(subjects, inputs),
      compute: computeDevelopment,
      documents: (output, input) => {
        const docs = new DocumentSet(developmentPaths, {
          asOf: input.asOf,
          freshFor: freshForEvery(INGEST_EVERY_SECONDS),
        });
        const scored = { methodology: DEVELOPMENT_METHODOLOGY };
        for (const [protocol, records] of output.activity) docs.add('development.activity', { protocol }, records);
        for (const [key, stats] of output.stats) {
          const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
          if (kind === 'protocol') docs.add('development.stats', { protocol: id }, stats, scored);
        }
        for (const [key, history] of output.scores) {
          const [kind, id] = key.split(':') as ['protocol' | 'chain', string];
          if (kind === 'protocol') docs.add('development.protocol-score', { protocol: id }, history, scored);
          else docs.add('development.chain-score', { chain: id }, history, scored);
        }
        docs.add('development.all', {}, output.ranking, scored);
        return docs.documents;
      },
      describe: (input) => `as of ${isoSeconds(input.asOf)}`,
    }),
  ];
}
