/**
 * The security analyser on Aave V3's sources (node_modules/@aave/core-v3/contracts, 124 files, read as
 * `protoscore security scan` reads a folder): the first analysis in a fresh process (WebAssembly start-up, parsing,
 * analysis), a second one of the same files (parse trees memoised: the analysis alone), a cache hit (what the
 * security area pays for an implementation whose code did not change), and solhint's cross-check. Target: the
 * first analysis under 10 s (issue 29).
 *
 *   npm run bench:security -- [--path node_modules/@aave/core-v3/contracts] [--cross-check]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    path: { type: 'string', default: 'node_modules/@aave/core-v3/contracts' },
    'cross-check': { type: 'boolean', default: false },
  },
});

const ms = (t0: number) => Math.round(performance.now() - t0);

const tLoad = performance.now();
const { analyse } = await import('../../src/areas/security/analyser/analyse.js');
const { analyseCached } = await import('../../src/areas/security/analyser/cache.js');
const { scanInput } = await import('../../src/cli/security.js');
const loadMs = ms(tLoad);

const tRead = performance.now();
const input = scanInput(flags.path);
const readMs = ms(tRead);
const files = Object.keys(input.sources).length;

const t1 = performance.now();
const report = analyse(input);
const firstMs = ms(t1);

const t2 = performance.now();
analyse(input);
const secondMs = ms(t2);

const cache = new Map();
analyseCached(input, cache);
const t3 = performance.now();
const hit = analyseCached(input, cache);
const hitMs = performance.now() - t3;

let crossMs: number | undefined;
if (flags['cross-check']) {
  const { crossCheck } = await import('../../src/areas/security/analyser/solhint.js');
  const t4 = performance.now();
  crossCheck(input.sources);
  crossMs = ms(t4);
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  JSON.stringify(
    {
      machine: `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      path: flags.path,
      files,
      contracts: report.contracts.length,
      findings: report.totals,
      engine: report.engine,
      module_load_ms: loadMs,
      read_ms: readMs,
      first_analysis_ms: firstMs,
      second_analysis_ms: secondMs,
      cache_hit_ms: Number(hitMs.toFixed(3)),
      cache_hit: hit.cached,
      ...(crossMs !== undefined ? { solhint_cross_check_ms: crossMs } : {}),
      target_met: loadMs + readMs + firstMs < 10_000,
    },
    null,
    2,
  ),
);
