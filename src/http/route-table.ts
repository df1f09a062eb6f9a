import type { PathDef } from '../areas/types.js';
import { ApiError } from '../core/errors.js';
import { canonicalSegment, PARAM_KINDS, type ParamKind, quoteSegment } from './params.js';

type Segment = { readonly literal: string } | { readonly param: ParamKind };

export interface CompiledPath {
  readonly def: PathDef;
  readonly segments: readonly Segment[];
  readonly params: readonly ParamKind[];
}

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

export interface ResolvedParams {
  /** Canonical values by parameter name. */
  readonly values: Readonly<Record<string, string>>;
  /** The canonical path, when the request's differs from it (a 308 is due). */
  readonly redirectTo: string | undefined;
}

export function compilePath(def: PathDef): CompiledPath {
  if (!def.template.startsWith('/')) throw new Error(`${def.id}: template must start with /`);
  const segments: Segment[] = def.template
    .slice(1)
    .split('/')
    .map((s) => {
      const m = /^<([a-z0-9_]+)>$/.exec(s);
      if (!m) return { literal: s };
      if (!(PARAM_KINDS as readonly string[]).includes(m[1]!)) throw new Error(`${def.id}: unknown parameter ${s}`);
      return { param: m[1] as ParamKind };
    });
  return { def, segments, params: segments.flatMap((s) => ('param' in s ? [s.param] : [])) };
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

/**
 * Validates and canonicalises the decoded segments of a request against a compiled path. Throws a 400 naming
 * the first malformed segment; returns the canonical values and, when the request's form differs, the
 * canonical path to redirect to.
 */
export function resolveParams(path: CompiledPath, raw: readonly string[], labels?: readonly string[]): ResolvedParams {
  const values: Record<string, string> = {};
  let differs = false;
  const canonicalSegments: string[] = [];
  let i = 0;
  for (const seg of path.segments) {
    if ('literal' in seg) {
      canonicalSegments.push(seg.literal);
      continue;
    }
    const label = labels?.[i] ?? `<${seg.param}>`;
    const input = raw[i++] ?? '';
    const letterCase =
      seg.param === 'version' || seg.param === 'base_asset' ? (path.def.letterCase ?? 'upper') : 'upper';
    const result = canonicalSegment(seg.param, input, letterCase);
    if (!result.ok) {
      throw new ApiError('invalid_parameter', `invalid ${label} ${quoteSegment(input)}: expected ${result.expected}`);
    }
    if (result.canonical !== input) differs = true;
    values[seg.param] = result.canonical;
    canonicalSegments.push(encodeURIComponent(result.canonical));
  }
  return { values, redirectTo: differs ? `/${canonicalSegments.join('/')}` : undefined };
}

/**
 * The key of the document that answers a request: the canonical path with lowercase addresses, and for paged
 * listings without the trailing page segments (the API slices the page).
 */
export function documentPath(path: CompiledPath, values: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  for (const seg of path.segments) {
    if ('literal' in seg) parts.push(seg.literal);
    else if (seg.param === 'page_size' || seg.param === 'page_skip') continue;
    else {
      const v = values[seg.param]!;
      parts.push(seg.param === 'token_address' || seg.param === 'pool_address' ? v.toLowerCase() : v);
    }
  }
  return `/${parts.join('/')}`;
}

/** Fills a template with values (for tests, docs and publishers). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/<([a-z0-9_]+)>/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for <${name}> in ${template}`);
    return v;
  });
}
