import type { TSchema } from '@sinclair/typebox';
import type { AreaId } from '../core/areas.js';
import type { Registry } from '../registry/index.js';
import type { SegmentCase } from './params.js';

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
