import { isoSeconds } from '../../core/time.js';
import type { JobDef } from '../../jobs/types.js';
import { computeJob, DocumentSet, freshForEvery } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeCommunity } from './compute.js';
import { CommunityIngest } from './ingest.js';
import { CommunityRepository } from './repo.js';
import { communityPaths } from './routes.js';
import { SOCIAL_METHODOLOGY } from './score.js';
import { communityTargets } from './targets.js';

/**
 * The community area's jobs: `community.ingest.discord` and `community.ingest.reddit` (each tracked protocol's guild
 * or subreddit → message facts, one transaction per channel read) and `community.compute` (facts → the listings and every protocol's 7 daily records).
 */
export const COMMUNITY_COMPUTATION = 'community.compute';
/** Discord and Reddit are read every 5 minutes: a pass is a few requests per channel once the first read is done. */
const INGEST_EVERY_SECONDS = 300;

export function communityJobs(env: AreaEnv): JobDef[] {
  const targets = communityTargets(env);
  if (!targets) return [];
  // One ingest job per channel: Reddit's rate-limit waits (up to its 10-minute window) never hold Discord's reads
  // back, and a failing source fails only its own runs.
  const ingests: JobDef[] = [];
  for (const channel of ['discord', 'reddit'] as const) {
    const read = targets[channel];
    if (!read) continue;
    const ingest = new CommunityIngest({ [channel]: read, all: read.subjects });
    ingests.push({
      name: `community.ingest.${channel}`,
      area: 'community',
      description: `Reads ${read.subjects.length} protocols' ${channel === 'discord' ? 'Discord guilds' : 'subreddits'}`,
      everySeconds: INGEST_EVERY_SECONDS,
      maxAttempts: 3,
      backoffMs: 5000,
      run: (ctx) => ingest.run(ctx),
    });
  }
  return [
    ...ingests,
    computeJob({
      name: COMMUNITY_COMPUTATION,
      runAfter: ingests.map((j) => j.name),
      area: 'community',
      description: 'Channel listings, daily social metrics and social scores of every tracked protocol (2 paths)',
      everySeconds: 30,
      keepIdentical: true,
      inputs: (ctx) => new CommunityRepository(ctx.store.db).computeInputs(),
      load: (ctx) => new CommunityRepository(ctx.store.db).computeInput(targets.all),
      compute: computeCommunity,
      documents: (output, input) => {
        // Each channel's documents name the one source their figures come from (`sandbox:discord` for Discord's),
        // not both the area reads.
        const sets = new Map<string, DocumentSet>();
        const setOf = (channel: string) => {
          let set = sets.get(channel);
          if (!set) {
            const source = env.sources.get(channel as 'discord' | 'reddit')?.source;
            set = new DocumentSet(communityPaths, {
              asOf: input.asOf,
              freshFor: freshForEvery(INGEST_EVERY_SECONDS),
              ...(source === undefined ? {} : { source }),
            });
            sets.set(channel, set);
          }
          return set;
        };
        for (const [channel, listing] of output.listings)
          setOf(channel).add('community.protocols', { channel }, listing);
        for (const [key, history] of output.histories) {
          const [channel, protocol] = key.split(':') as [string, string];
          setOf(channel).add('community.social', { channel, protocol }, history, { methodology: SOCIAL_METHODOLOGY });
        }
        return [...sets.values()].flatMap((set) => set.documents);
      },
      describe: (input) => `as of ${isoSeconds(input.asOf)}`,
    }),
  ];
}
