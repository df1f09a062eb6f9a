import { defineArea } from '../kit/module.js';
import { COMMUNITY_COMPUTATION, communityJobs } from './jobs.js';
import { communityPaths } from './routes.js';
import { COMMUNITY_MIGRATIONS } from './tables.js';

export const communityArea = defineArea({
  id: 'community',
  title: 'Community',
  paths: communityPaths,
  dependsOn: [],
  migrations: COMMUNITY_MIGRATIONS,
  jobs: communityJobs,
  computations: [COMMUNITY_COMPUTATION],
});
