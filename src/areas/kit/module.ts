import type { Migration } from 'kysely';
import type { Config } from '../../config/index.js';
import type { AreaId } from '../../core/areas.js';
import type { JobDef } from '../../jobs/types.js';
import type { PathDef } from '../../paths/types.js';
import type { AddressBook } from '../../registry/address-book.js';
import type { Registry } from '../../registry/index.js';
import { type SourceHandles, type SourceKind, SourceMap } from '../../sources/index.js';
import { publishedAs } from './compute-job.js';
import { sourceLabel } from './source-label.js';

/**
 * What an area's jobs may use, decided at start-up. Production and the sandbox differ only in the values: the
 * sources' endpoints and the address book's entry points.
 */
export interface AreaEnv {
  readonly config: Config;
  readonly registry: Registry;
  /** Entry points of the registry's entities on the chains read: the registry's own, or the sandbox's. */
  readonly book: AddressBook;
  /** The sources this process has (EVM chains, GitHub, …); an area takes the ones it reads. */
  readonly sources: SourceMap;
}

/** An area: its paths, its tables, its jobs, and the areas whose public face it reads. */
export interface AreaModule {
  readonly id: AreaId;
  readonly title: string;
  readonly paths: readonly PathDef[];
  /** Areas whose `public.ts` this one imports (their facts or publications are its inputs). */
  readonly dependsOn: readonly AreaId[];
  /** Migrations of the area's own tables, by key (keys are global and never change once released). */
  readonly migrations?: Readonly<Record<string, Migration>>;
  /** Ingest and compute jobs of the area, for the sources this process has (none when it has none it reads). */
  jobs(env: AreaEnv): readonly JobDef[];
  /** Computations whose first publication makes the area ready (`/ready`). */
  readonly computations: readonly string[];
}

/** The sources of an environment, noting which kinds an area takes (`get`). */
class NotedSources extends SourceMap {
  constructor(
    private readonly inner: SourceMap,
    private readonly taken: Set<SourceKind>,
  ) {
    super();
  }

  override get<K extends SourceKind>(kind: K): SourceHandles[K] | undefined {
    this.taken.add(kind);
    return this.inner.get(kind);
  }

  override has(kind: SourceKind): boolean {
    return this.inner.has(kind);
  }

  override kinds(): SourceKind[] {
    return this.inner.kinds();
  }

  override with<K extends SourceKind>(kind: K, handle: SourceHandles[K]): SourceMap {
    return this.inner.with(kind, handle);
  }
}

/**
 * Checks an area's declaration (its paths are its own) and labels its publications: the compute jobs it makes
 * publish with `meta.source` naming the sources its jobs took from the environment (`sourceLabel`: the chain and its
 * id, `sandbox:` first when the sandbox serves it), whatever description the area gave its `DocumentSet`.
 */
export function defineArea(area: AreaModule): AreaModule {
  for (const path of area.paths) {
    if (path.area !== area.id) throw new Error(`${area.id}: path ${path.id} belongs to ${path.area}`);
    if (!path.id.startsWith(`${area.id}.`)) throw new Error(`${area.id}: path id ${path.id} must start with the area`);
  }
  if (area.dependsOn.includes(area.id)) throw new Error(`${area.id}: an area does not depend on itself`);
  return {
    ...area,
    jobs(env) {
      const taken = new Set<SourceKind>();
      const jobs = area.jobs({ ...env, sources: new NotedSources(env.sources, taken) });
      const label = sourceLabel(env, taken);
      return label === undefined ? jobs : jobs.map((job) => publishedAs(job, label));
    },
  };
}
