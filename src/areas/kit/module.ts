import type { Migration } from 'kysely';
import type { Config } from '../../config/index.js';
import type { AreaId } from '../../core/areas.js';
import type { JobDef } from '../../jobs/types.js';
import type { PathDef } from '../../paths/types.js';
import type { AddressBook } from '../../registry/address-book.js';
import type { Registry } from '../../registry/index.js';
import { type SourceHandles, type SourceKind, SourceMap } from '../../sources/index.js';
import { publishedAs, publishingEvery } from './compute-job.js';
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
  /** The area's parts (`AreaPart.id`, each the folder `areas/<id>/<part>/`); empty for an area of one source family. */
  readonly parts: readonly string[];
}

/**
 * One source family of an area made of several (the blockchain area's EVM chains and Bitcoin; derivatives' GMX, dYdX
 * and Synthetix next): the folder `areas/<area>/<id>/` with the area's roles (`ingest.ts`, `facts`/`schema.ts`,
 * `compute.ts`, `repo.ts`, `tables.ts`, `jobs.ts`, its `index.ts` declaring it), beside the area's shared files
 * (`index.ts`, `routes.ts`, `public.ts` and what its parts share). A part reads no sibling part; its documents are
 * labelled with the sources it took (`meta.source`), not with every source of the area.
 */
export interface AreaPart {
  readonly id: string;
  readonly migrations?: Readonly<Record<string, Migration>>;
  jobs(env: AreaEnv): readonly JobDef[];
  readonly computations: readonly string[];
}

/** What an area declares: its jobs, computations and migrations itself, or its parts. */
export type AreaDeclaration = Omit<AreaModule, 'jobs' | 'computations' | 'parts'> &
  (
    | { jobs(env: AreaEnv): readonly JobDef[]; readonly computations: readonly string[]; readonly parts?: undefined }
    | { readonly parts: readonly AreaPart[]; readonly jobs?: undefined; readonly computations?: undefined }
  );

/** Checks a part's declaration (its id is its folder's name). */
export function definePart(part: AreaPart): AreaPart {
  if (!/^[a-z][a-z0-9-]*$/.test(part.id)) throw new Error(`area part ${part.id}: its id is its folder's name`);
  return part;
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
 * The jobs of one source family with `meta.source` naming the sources they took from the environment (`sourceLabel`:
 * the chain and its id, `sandbox:` first when the sandbox serves it) on every document that names none.
 */
function labelledJobs(jobs: (env: AreaEnv) => readonly JobDef[], env: AreaEnv, area: AreaId): readonly JobDef[] {
  const taken = new Set<SourceKind>();
  const made = jobs({ ...env, sources: new NotedSources(env.sources, taken) });
  const label = sourceLabel(env, taken, area);
  const every = env.config.publishEverySeconds;
  return made.map((job) => {
    const paced = every > 0 ? publishingEvery(job, every) : job;
    return label === undefined ? paced : publishedAs(paced, label);
  });
}

/**
 * Checks an area's declaration (its paths are its own; its parts' ids, computations and migration keys distinct)
 * and labels its publications: each part's compute jobs (the area's, when it has no parts) publish with
 * `meta.source` naming the sources that part's jobs took, on every document that names none (`publishedAs`).
 */
export function defineArea(area: AreaDeclaration): AreaModule {
  for (const path of area.paths) {
    if (path.area !== area.id) throw new Error(`${area.id}: path ${path.id} belongs to ${path.area}`);
    if (!path.id.startsWith(`${area.id}.`)) throw new Error(`${area.id}: path id ${path.id} must start with the area`);
  }
  if (area.dependsOn.includes(area.id)) throw new Error(`${area.id}: an area does not depend on itself`);
  const base = { id: area.id, title: area.title, paths: area.paths, dependsOn: area.dependsOn };
  if (!area.parts) {
    const { jobs } = area;
    return {
      ...base,
      ...(area.migrations ? { migrations: area.migrations } : {}),
      computations: area.computations,
      parts: [],
      jobs: (env) => labelledJobs(jobs, env, area.id),
    };
  }
  const parts = area.parts;
  if (!parts.length) throw new Error(`${area.id}: an area of parts has at least one`);
  const migrations: Record<string, Migration> = { ...area.migrations };
  for (const part of parts) {
    if (parts.filter((p) => p.id === part.id).length > 1) throw new Error(`${area.id}: part ${part.id} twice`);
    for (const [key, migration] of Object.entries(part.migrations ?? {})) {
      if (key in migrations) throw new Error(`${area.id}/${part.id}: migration ${key} is declared twice`);
      migrations[key] = migration;
    }
  }
  const computations = parts.flatMap((p) => p.computations);
  if (new Set(computations).size !== computations.length) throw new Error(`${area.id}: a computation twice`);
  return {
    ...base,
    ...(Object.keys(migrations).length ? { migrations } : {}),
    computations,
    parts: parts.map((p) => p.id),
    jobs: (env) => parts.flatMap((part) => labelledJobs((e) => part.jobs(e), env, area.id)),
  };
}
