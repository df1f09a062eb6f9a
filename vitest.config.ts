import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Tests that measure the service's own responsiveness (latency percentiles, shedding under a flood) run after the
 * rest of the suite, one file at a time: beside other test files on two cores they would measure those files'
 * load, not the service (a first start polled beside the suite saw its p99 go from 37 to 112 ms). The multi-process
 * deployment test joins them: its claims are timed (a revocation or a publication seen by both API processes within
 * `SYNC_INTERVAL_MS`, a lease taken over when it expires), and so does the live tokens test (a revocation seen by two
 * `serve`s within `SYNC_INTERVAL_MS` + 150 ms: beside the suite at a load of 15 on two cores it once took 550 ms on
 * PostgreSQL, the timer's delay, not the sync's). The resting-service test measures the CPU time of a service at
 * rest, which other files running beside it would add to.
 */
const ALONE = [
  'test/overload.test.ts',
  'test/first-start-responsive.test.ts',
  'test/multi-process.test.ts',
  'test/tokens-live.test.ts',
  'test/resting-service.test.ts',
];
/**
 * Files a run leaves out, comma-separated in `PROTOSCORE_TEST_EXCLUDE`: only for a pass that names them with the
 * reason where it sets them (`.ci/run`'s Node.js 24 pass did until issue 31's fixes; none does today). Vitest's
 * `--exclude` would not reach the suite project, whose own `exclude` replaces it.
 */
const SKIP = (process.env.PROTOSCORE_TEST_EXCLUDE ?? '').split(',').filter(Boolean);

export default defineConfig({
  test: {
    // Two cores: run test files in parallel on at most two forks.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [...ALONE, ...SKIP] },
      },
      ...ALONE.filter((file) => !SKIP.includes(file)).map(
        (file, i): TestProjectInlineConfiguration => ({
          extends: true,
          test: { name: file, include: [file], sequence: { groupOrder: i + 1 } },
        }),
      ),
    ],
  },
});
