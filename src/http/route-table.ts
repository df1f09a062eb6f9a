import { type CompiledPath, compilePath } from '../paths/compile.js';
import type { ParamKind } from '../paths/params.js';
import type { PathDef } from '../paths/types.js';

/** Spec paths that share one URL shape (e.g. `/data/blockchain/<l1_chain>` and `/<l2_chain>`). */
export interface RouteGroup {
  /** The Fastify URL, parameters named by position: `/data/blockchain/:p0`. */
  readonly url: string;
  readonly paths: readonly CompiledPath[];
  /** How errors name each parameter position: `<l1_chain> or <l2_chain>` where the paths differ. */
  readonly labels: readonly string[];
  /** Fastify parameter names by position: the spec's names, or `chain` where the paths name it differently. */
  readonly paramNames: readonly string[];
  /** The URL registered with Fastify (and shown in OpenAPI): `/data/blockchain/:chain`. */
  readonly fastifyUrl: string;
}

export function groupRoutes(defs: readonly PathDef[]): RouteGroup[] {
  const groups = new Map<string, CompiledPath[]>();
  for (const def of defs) {
    const compiled = compilePath(def);
    let i = 0;
    const url = `/${compiled.segments.map((s) => ('param' in s ? `:p${i++}` : s.literal)).join('/')}`;
    const list = groups.get(url) ?? [];
    // Paths sharing a URL shape are parsed by one rule set, so their parameters must follow the same rules.
    if (list.some((c) => c.params.map(kindRule).join() !== compiled.params.map(kindRule).join())) {
      throw new Error(`${def.id}: shares ${url} with paths whose parameters follow other rules`);
    }
    list.push(compiled);
    groups.set(url, list);
  }
  return [...groups].map(([url, paths]) => {
    const paramNames = paths[0]!.params.map((kind, i) =>
      paths.every((p) => p.params[i] === kind) ? kind : kindRule(kind),
    );
    let i = 0;
    return {
      url,
      paths,
      labels: paths[0]!.params.map((_, i) => [...new Set(paths.map((p) => `<${p.params[i]}>`))].join(' or ')),
      paramNames,
      fastifyUrl: `/${paths[0]!.segments.map((s) => ('param' in s ? `:${paramNames[i++]}` : s.literal)).join('/')}`,
    };
  });
}

/** Parameters validated by the same rule (the chain identifiers), so that they may share a URL shape. */
function kindRule(kind: ParamKind): string {
  return kind === 'l1_chain' || kind === 'l2_chain' ? 'chain' : kind;
}
