import { type CompiledPath, compilePath, documentPath } from '../../paths/compile.js';
import type { PathDef } from '../../paths/types.js';
import type { NamedDocument } from './compute-job.js';

/**
 * How long after its `as_of` a document counts as fresh, unless its computation says otherwise: the areas whose
 * chains are read every few seconds. An area read on a slower schedule states it with `freshForEvery`; the blockchain
 * area, whose chains can go an hour without a block, with its own figure.
 */
export const DEFAULT_FRESH_FOR_SECONDS = 1800;

/** The freshness of documents of an area ingested every `everySeconds` (GitHub, Discord): two missed passes and a margin. */
export const freshForEvery = (everySeconds: number): number => 3 * everySeconds + 600;

/** What every document of one computation shares unless a document says otherwise. */
export interface DocumentDefaults {
  /** Unix seconds: the instant at which the figures hold (`API.md` Conventions). */
  readonly asOf: number;
  /**
   * `meta.source`, only where a computation's documents come from different sources (the blockchain area's EVM part:
   * one chain each, `chainSourceLabel`). Left out, a compute job of an area declared with `defineArea` publishes the
   * label of the sources the area or part read (`sandbox:ethereum:31337`, `ethereum:1`, `github`: docs/vocabulary.md).
   */
  readonly source?: string;
  /** Seconds after `asOf` within which a document counts as fresh (default `DEFAULT_FRESH_FOR_SECONDS`). */
  readonly freshFor?: number;
}

export interface DocumentOptions {
  /** This document's own `as_of`, when it differs from the computation's. */
  readonly asOf?: number;
  /** `<area>.<model>@<version>` of the model that computed the payload (`meta.methodology`). */
  readonly methodology?: string | undefined;
}

/** Whether a path serves scores: its row names a model, or its shape is a score history or a score listing. */
export const isScorePath = (def: PathDef): boolean =>
  def.methodology !== undefined || def.shape === 'score-history' || def.shape === 'all-scores';

/**
 * Turns a computation's outputs into the documents it publishes: each under the canonical path of a path-table
 * row (by id) filled with the entity's parameters, with `as_of`, freshness, methodology and, where given, source. A document of a
 * score path without `methodology`, or with another model's than its row names, is refused (docs/vocabulary.md:
 * `meta.methodology` is on every score path).
 */
export class DocumentSet {
  private readonly defs: ReadonlyMap<string, PathDef>;
  private readonly compiled: ReadonlyMap<string, CompiledPath>;
  private readonly list: NamedDocument[] = [];

  constructor(
    paths: readonly PathDef[],
    private readonly defaults: DocumentDefaults,
  ) {
    this.defs = new Map(paths.map((def) => [def.id, def]));
    this.compiled = new Map(paths.map((def) => [def.id, compilePath(def)]));
  }

  /** The canonical document path of row `pathId` for these parameter values. */
  path(pathId: string, params: Readonly<Record<string, string>>): string {
    const compiled = this.compiled.get(pathId);
    if (!compiled) throw new Error(`no path ${pathId} in this area's table`);
    return documentPath(compiled, params);
  }

  add(pathId: string, params: Readonly<Record<string, string>>, data: unknown, options: DocumentOptions = {}): this {
    const def = this.defs.get(pathId);
    if (def && isScorePath(def)) {
      if (!options.methodology) throw new Error(`${pathId}: a score path's document needs its methodology`);
      if (def.methodology !== undefined && !options.methodology.startsWith(`${def.methodology}@`)) {
        throw new Error(`${pathId}: methodology ${options.methodology} is not the row's model ${def.methodology}`);
      }
    }
    this.list.push({
      path: this.path(pathId, params),
      data,
      asOf: options.asOf ?? this.defaults.asOf,
      ...(this.defaults.source === undefined ? {} : { source: this.defaults.source }),
      freshFor: this.defaults.freshFor ?? DEFAULT_FRESH_FOR_SECONDS,
      ...(options.methodology ? { methodology: options.methodology } : {}),
    });
    return this;
  }

  get documents(): NamedDocument[] {
    return [...this.list];
  }
}
