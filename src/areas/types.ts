import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../config/index.js';
import type { AreaId } from '../core/areas.js';
import type { SegmentCase } from '../http/params.js';
import type { JobDef } from '../jobs/types.js';
import type { Registry } from '../registry/index.js';
import type { EvmEnvironment } from '../sources/environment.js';
import type { GithubEnvironment } from '../sources/github/environment.js';

export type PathParams = Readonly<Record<string, string>>;

/** Why an entity is not served: the message names valid values or the listing path that does. */
export interface UnknownEntity {
  readonly message: string;
}

/**
 * The shape of a path's payload, which decides the envelope and docs:
 * - `snapshot`: the latest state; `listing`: the entities a client can name next;
 * - `paged`: a listing served a page at a time (trailing `<page_size>/<page_skip>` segments);
 * - `daily-7`: daily records of the 7 most recent UTC days, newest first;
 * - `score-history`: the same 7 days of scores, `data[0]` is the current score; `all-scores`: one current score per entity.
 */
export type PathShape = 'snapshot' | 'listing' | 'paged' | 'daily-7' | 'score-history' | 'all-scores';

/** One row of the path table: a spec path, exactly as written, and everything that serves it. */
export interface PathDef {
  /** Stable id: `<area>.<name>`. */
  readonly id: string;
  readonly area: AreaId;
  /** The spec path, e.g. `/data/liquidity/dex/pool-analytics/<pool_address>`. */
  readonly template: string;
  readonly shape: PathShape;
  readonly summary: string;
  /** Letter case of `<version>` and `<base_asset>` in this path. */
  readonly letterCase?: SegmentCase;
  /** Schema of `data` (documents the payload in OpenAPI); areas fill it in as they compute it. */
  readonly payload?: TSchema;
  /** The methodology id of the score this path serves (`<area>.<model>`), for docs. */
  readonly methodology?: string;
  /** Is the entity the parameters name supported? Undefined means yes. */
  entity(params: PathParams, registry: Registry): UnknownEntity | undefined;
}

/** What an area's jobs may use, decided at start-up (sources differ between production and the sandbox). */
export interface AreaEnv {
  readonly config: Config;
  readonly evm: EvmEnvironment;
  /** GitHub (the development area): the configured API or the sandbox's stand-in; absent: no GitHub jobs. */
  readonly github?: GithubEnvironment;
}

export interface AreaModule {
  readonly id: AreaId;
  readonly title: string;
  readonly paths: readonly PathDef[];
  /** Ingest and compute jobs of the area, for the sources this process has. */
  jobs(env: AreaEnv): readonly JobDef[];
  /** Computations whose first publication makes the area ready (`/ready`). */
  readonly computations: readonly string[];
}
