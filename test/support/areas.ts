/**
 * Running areas in tests: the environment an area gets from a sandbox world (the world's chain as the only EVM
 * source, the world's address book), and an area runner that runs an area's jobs one by one, in the order the area
 * declares them, against a store and a test clock.
 */
import pino from 'pino';
import type { AreaEnv, AreaModule } from '../../src/areas/kit/module.js';
import { loadConfig } from '../../src/config/index.js';
import type { JobContext, JobDef } from '../../src/jobs/types.js';
import { registry } from '../../src/registry/index.js';
import { addressBookFromManifest } from '../../src/sandbox/world/address-book.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import { EvmChains, type EvmEndpoint } from '../../src/sources/evm/chains.js';
import type { GithubEndpoint } from '../../src/sources/github/endpoint.js';
import { runWithStop } from '../../src/sources/http.js';
import { SourceMap } from '../../src/sources/index.js';
import type { Store } from '../../src/store/db.js';
import type { TestClock } from '../helpers.js';

/** What a sandbox world gives the service: its chain's RPC URL and its address book. */
export interface WorldAccess {
  readonly manifest: WorldManifest;
  readonly rpcUrl: string;
}

/**
 * The environment of a process reading this world, as `start` makes it (its chain under the registry's name, with
 * the registry's finality depth); `endpoint` overrides the chain's endpoint settings (a faulty proxy, small ranges).
 */
export function sandboxEnv(
  world: WorldAccess,
  options: { endpoint?: Partial<Omit<EvmEndpoint, 'id'>>; github?: GithubEndpoint } = {},
): AreaEnv {
  const chain = registry.chain(world.manifest.chain)!;
  const endpoint: EvmEndpoint = {
    id: chain.id,
    rpcUrl: world.rpcUrl,
    finalityDepth: chain.finalityDepth,
    finality: chain.finality,
    ...options.endpoint,
  };
  let sources = new SourceMap({ evm: new EvmChains([endpoint], { log: pino({ level: 'warn' }) }) });
  if (options.github) sources = sources.with('github', options.github);
  return {
    config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
    registry,
    book: addressBookFromManifest(world.manifest),
    sources,
  };
}

/** The environment of a process with only GitHub to read (the development area's tests). */
export function githubEnv(github: GithubEndpoint): AreaEnv {
  return {
    config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
    registry,
    book: { origin: 'registry', chains: {} },
    sources: new SourceMap({ github }),
  };
}

/** Jobs run one by one against a store with a test context. */
export function jobRunner(defs: readonly JobDef[], store: Store, clock: TestClock, onPublished = async () => {}) {
  const jobs = new Map<string, JobDef>(defs.map((j) => [j.name, j]));
  const ctx = (signal = new AbortController().signal): JobContext => ({
    store,
    clock,
    log: pino({ level: 'warn' }),
    signal,
    attempt: 1,
    notifyPublished: onPublished,
  });
  return (name: string, signal?: AbortSignal) => {
    const job = jobs.get(name);
    if (!job) throw new Error(`no job ${name}; the area has ${[...jobs.keys()].join(', ')}`);
    const context = ctx(signal);
    return runWithStop(context.signal, () => job.run(context));
  };
}

/** An area's jobs for an environment: `run(name)` one of them, or `all()` once each, in the area's order. */
export function areaRunner(
  area: AreaModule,
  env: AreaEnv,
  store: Store,
  clock: TestClock,
  onPublished = async () => {},
) {
  const defs = area.jobs(env);
  const run = jobRunner(defs, store, clock, onPublished);
  return {
    run,
    jobs: defs.map((j) => j.name),
    /** Runs every job once in the declared order; returns the last one's summary. */
    async all(): Promise<string | undefined> {
      let last: string | undefined;
      for (const def of defs) last = await run(def.name);
      return last;
    },
  };
}

/** `areas` with every area after the areas it reads (`dependsOn`, among those given), otherwise in the given order. */
export function inDependencyOrder(areas: readonly AreaModule[]): AreaModule[] {
  const given = new Set(areas.map((a) => a.id));
  const done = new Set<string>();
  const out: AreaModule[] = [];
  while (out.length < areas.length) {
    const next = areas.find((a) => !done.has(a.id) && a.dependsOn.every((d) => done.has(d) || !given.has(d)));
    if (!next) throw new Error(`the areas' dependsOn close a circle: ${areas.map((a) => a.id).join(', ')}`);
    done.add(next.id);
    out.push(next);
  }
  return out;
}

/**
 * Runs `areas` on one environment as a first pass of the runtime would: the areas in `dependsOn` order, each
 * area's jobs once in its declared order. Returns every job's summary.
 */
export async function runAreas(
  areas: readonly AreaModule[],
  env: AreaEnv,
  store: Store,
  clock: TestClock,
  onPublished = async () => {},
): Promise<{ job: string; summary: string | null }[]> {
  const summaries: { job: string; summary: string | null }[] = [];
  for (const area of inDependencyOrder(areas)) {
    const runner = areaRunner(area, env, store, clock, onPublished);
    for (const job of runner.jobs) summaries.push({ job, summary: (await runner.run(job)) ?? null });
  }
  return summaries;
}
