/**
 * The spec's path table as a concept, shared by the API (routing, 400/308, OpenAPI) and the areas (the keys under
 * which they publish documents): compile a template into segments, canonicalise a request's segments, and name the
 * document that answers a path.
 */
import { ApiError } from '../core/errors.js';
import { canonicalSegment, PARAM_KINDS, type ParamKind, quoteSegment } from './params.js';
import type { PathDef } from './types.js';

export type Segment = { readonly literal: string } | { readonly param: ParamKind };

export interface CompiledPath {
  readonly def: PathDef;
  readonly segments: readonly Segment[];
  readonly params: readonly ParamKind[];
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
