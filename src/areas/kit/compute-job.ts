import type { AreaId } from '../../core/areas.js';
import { nowSeconds } from '../../core/time.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import { readCheckpointAt, writeCheckpoint } from '../../store/checkpoints.js';
import { type DatasetDocument, DatasetRepository } from '../../store/datasets.js';

/** A reason the computation has nothing to do yet (shown as the run's summary). */
export interface Wait {
  readonly wait: string;
}

export const wait = (reason: string): Wait => ({ wait: reason });

function isWait(x: unknown): x is Wait {
  return typeof x === 'object' && x !== null && 'wait' in x && Object.keys(x).length === 1;
}

/**
 * One computation of an area: inputs gate → load from the store → pure compute → documents → publish.
 * - `inputs` names what the computation would read (block numbers, versions, instants: plain JSON, keys in a
 *   fixed order). When it equals what the last publication was computed from, the run ends there: nothing moved.
 * - `load` reads everything from the store (never from a source: ingestion stored it as facts).
 * - `compute` is the area's pure function; `documents` names its outputs' paths (a `DocumentSet`).
 */
export interface ComputeJobSpec<Inputs, Input, Output> {
  /** `<area>.compute` by convention; also the computation's name in `publications`. */
  readonly name: string;
  readonly area: AreaId;
  readonly description: string;
  /** Default 10 s: a run whose inputs did not move reads a few rows and returns. */
  readonly everySeconds?: number;
  /** The jobs that store what it reads (its ingest): each of their successful runs makes it due at once. */
  readonly runAfter?: readonly string[];
  inputs(ctx: JobContext): Promise<Inputs | Wait>;
  load(ctx: JobContext, inputs: Inputs): Promise<Input | Wait>;
  compute(input: Input): Output;
  documents(output: Output, input: Input): readonly NamedDocument[];
  /** A run whose documents equal the published set publishes nothing (version, computed_at and ETags stay). */
  readonly keepIdentical?: boolean;
  /**
   * How much of the history its documents need the inputs cover, as a count that grows with it (the day-end
   * snapshots stored, the UTC days whose blocks are ingested): a run whose inputs cover more than the last
   * publication's is not held back by `publishEverySeconds`, since it fills what the published documents lack (at a
   * first start, the backfill's days arriving one by one). In a steady state it grows about once a day, so the
   * pacing still bounds the publications that only move `as_of`. Absent: every publication is paced.
   */
  coverage?(inputs: Inputs): number;
  /** What the summary says about the input (e.g. `at block 123`). */
  describe?(input: Input): string;
}

/**
 * A document as a computation names it: its `meta.source` only where its documents come from different sources
 * (one chain each: `chainSourceLabel`); the others get the label of the sources their area or part read
 * (`publishedAs`).
 */
export type NamedDocument = Omit<DatasetDocument, 'source'> & { readonly source?: string };

/** The checkpoint under which a computation keeps the inputs it last published from. */
export const computedKey = (name: string) => `${name}:inputs`;

/** What a compute job is made with besides its spec (`publishedAs`, `publishingEvery`). */
export interface ComputeJobOptions {
  /**
   * The `meta.source` of every document that names none (`publishedAs`: the label of the sources the area or part
   * read). A document without a source when there is no label is an error of the area's wiring.
   */
  readonly source?: string;
  /**
   * The least time between two publications whose inputs moved (`PUBLISH_EVERY_SECONDS`): a run that finds its
   * inputs moved sooner after the last publication returns without loading anything and the next run after the
   * interval publishes. 0 or absent: publish on every change. The first publication is never held back, nor one
   * whose inputs cover more of the history than the last publication's (the spec's `coverage`).
   */
  readonly publishEverySeconds?: number;
}

/** How a compute job is made again with other options (`publishedAs`, `publishingEvery`). */
const RECONFIGURE = Symbol('computeJob.reconfigure');

function reconfigured(job: JobDef, options: ComputeJobOptions): JobDef {
  const again = (job as { [RECONFIGURE]?: (options: ComputeJobOptions) => JobDef })[RECONFIGURE];
  return again ? again(options) : job;
}

/**
 * This job publishing its documents with `meta.source` = `source` (a compute job of the kit; any other job as it
 * is). `defineArea` does it with the label of the sources an area read.
 */
export function publishedAs(job: JobDef, source: string): JobDef {
  return reconfigured(job, { source });
}

/**
 * This job publishing at most once every `seconds` while its inputs keep moving (a compute job of the kit; any other
 * job as it is). `defineArea` does it with the configuration's `PUBLISH_EVERY_SECONDS`.
 */
export function publishingEvery(job: JobDef, seconds: number): JobDef {
  return reconfigured(job, { publishEverySeconds: seconds });
}

/**
 * Whether `inputs` cover more of the history than `published` (the inputs of the last publication) by the spec's
 * `coverage`. Inputs stored by an earlier release may have another shape: a coverage that cannot be read from them
 * (it throws, or is not a number) counts as no more, and the run is paced as before.
 */
function coversMore<Inputs>(
  spec: Pick<ComputeJobSpec<Inputs, unknown, unknown>, 'coverage'>,
  inputs: Inputs,
  published: unknown,
): boolean {
  if (!spec.coverage) return false;
  try {
    const now = spec.coverage(inputs);
    const before = spec.coverage(published as Inputs);
    return Number.isFinite(now) && Number.isFinite(before) && now > before;
  } catch {
    return false;
  }
}

export function computeJob<Inputs, Input, Output>(
  spec: ComputeJobSpec<Inputs, Input, Output>,
  options: ComputeJobOptions = {},
): JobDef {
  const key = computedKey(spec.name);
  const { source } = options;
  const every = options.publishEverySeconds ?? 0;
  const job: JobDef = {
    name: spec.name,
    area: spec.area,
    description: spec.description,
    everySeconds: spec.everySeconds ?? 10,
    ...(spec.runAfter ? { runAfter: spec.runAfter } : {}),
    async run(ctx) {
      const inputs = await spec.inputs(ctx);
      if (isWait(inputs)) return inputs.wait;
      const last = await readCheckpointAt(ctx.store.db, key);
      if (last && JSON.stringify(last.value) === JSON.stringify(inputs))
        return 'up to date: inputs unchanged since the last publication';
      const sinceLast = nowSeconds(ctx.clock) - (last?.at ?? Number.NEGATIVE_INFINITY);
      if (last && sinceLast >= 0 && sinceLast < every && !coversMore(spec, inputs, last.value)) {
        return `inputs moved; the next publication in ${Math.ceil(every - sinceLast)} s (at most one every ${every} s)`;
      }
      const input = await spec.load(ctx, inputs);
      if (isWait(input)) return input.wait;
      const named = spec.documents(spec.compute(input), input);
      const documents = named.map((d): DatasetDocument => {
        if (d.source !== undefined) return { ...d, source: d.source };
        if (source === undefined) {
          throw new Error(`${spec.name}: ${d.path} has no meta.source (its jobs took no source from env.sources)`);
        }
        return { ...d, source };
      });
      const described = spec.describe ? ` ${spec.describe(input)}` : '';
      const datasets = new DatasetRepository(ctx.store.db);
      const at = nowSeconds(ctx.clock);
      if (spec.keepIdentical && (await datasets.samePublication(spec.name, documents))) {
        await writeCheckpoint(ctx.store.db, key, inputs, at);
        return `unchanged${described}: ${documents.length} documents as published`;
      }
      const version = await datasets.publish({ computation: spec.name, area: spec.area, computedAt: at, documents });
      await writeCheckpoint(ctx.store.db, key, inputs, at);
      await ctx.notifyPublished();
      return `published ${documents.length} documents (version ${version})${described}`;
    },
  };
  Object.defineProperty(job, RECONFIGURE, {
    value: (more: ComputeJobOptions) => computeJob(spec, { ...options, ...more }),
  });
  return job;
}
