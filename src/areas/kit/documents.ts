import { type CompiledPath, compilePath, documentPath } from '../../paths/compile.js';
import type { PathDef } from '../../paths/types.js';
import type { DatasetDocument } from '../../store/datasets.js';

/** What every document of one computation shares unless a document says otherwise. */
export interface DocumentDefaults {
  /** Unix seconds: the instant at which the figures hold (`API.md` Conventions). */
  readonly asOf: number;
  /** Where the figures come from, for `meta.source`. */
  readonly source: string;
  /** Seconds after `asOf` within which a document counts as fresh. */
  readonly freshFor: number;
}

export interface DocumentOptions {
  /** This document's own `as_of`, when it differs from the computation's. */
  readonly asOf?: number;
  /** `<area>.<model>@<version>` of the model that computed the payload (`meta.methodology`). */
  readonly methodology?: string | undefined;
}

/**
 * Turns a computation's outputs into the documents it publishes: each under the canonical path of a path-table
 * row (by id) filled with the entity's parameters, with `as_of`, source, freshness and methodology.
 */
export class DocumentSet {
  private readonly compiled: ReadonlyMap<string, CompiledPath>;
  private readonly list: DatasetDocument[] = [];

  constructor(
    paths: readonly PathDef[],
    private readonly defaults: DocumentDefaults,
  ) {
    this.compiled = new Map(paths.map((def) => [def.id, compilePath(def)]));
  }

  /** The canonical document path of row `pathId` for these parameter values. */
  path(pathId: string, params: Readonly<Record<string, string>>): string {
    const compiled = this.compiled.get(pathId);
    if (!compiled) throw new Error(`no path ${pathId} in this area's table`);
    return documentPath(compiled, params);
  }

  add(pathId: string, params: Readonly<Record<string, string>>, data: unknown, options: DocumentOptions = {}): this {
    this.list.push({
      path: this.path(pathId, params),
      data,
      asOf: options.asOf ?? this.defaults.asOf,
      source: this.defaults.source,
      freshFor: this.defaults.freshFor,
      ...(options.methodology ? { methodology: options.methodology } : {}),
    });
    return this;
  }

  get documents(): DatasetDocument[] {
    return [...this.list];
  }
}
