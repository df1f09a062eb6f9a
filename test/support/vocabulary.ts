/**
 * The rules of "One vocabulary" (docs/vocabulary.md, issue 13) as a checker of published documents: each rule a
 * violation names by path, field and value, so that a run lists every departure of every area at once.
 */

import type { TSchema } from '@sinclair/typebox';
import { isScorePath } from '../../src/areas/kit/documents.js';
import { GAP_REASON_WORDS } from '../../src/core/gaps.js';
import type { PathDef } from '../../src/paths/types.js';

/** One published document as the API serves it: its path, payload and meta. */
export interface PublishedDocument {
  readonly path: string;
  readonly area: string;
  readonly data: unknown;
  readonly meta: { readonly as_of: string; readonly source: string; readonly methodology?: string };
}

export interface Violation {
  readonly rule: string;
  readonly path: string;
  /** JSON path of the field in `data` (`$` is the payload), or `meta.<field>`. */
  readonly field: string;
  readonly detail: string;
}

/** The gap reasons of docs/vocabulary.md (src/core/gaps.ts). */
export const GAP_REASONS = GAP_REASON_WORDS;

/** Digits after the decimal point that carry information: the fraction's digits, less its leading zeros below 1. */
export function significantDecimals(n: number): number {
  if (!Number.isFinite(n) || Number.isInteger(n)) return 0;
  const text = String(Math.abs(n));
  const exp = text.match(/^(\d)(?:\.(\d+))?e([+-]\d+)$/);
  if (exp) {
    const e = Number(exp[3]);
    const digits = 1 + (exp[2]?.length ?? 0);
    return e < 0 ? digits : Math.max(0, digits - 1 - e);
  }
  const [whole, fraction = ''] = text.split('.');
  return whole === '0' ? fraction.replace(/^0+/, '').length : fraction.length;
}

/**
 * Float noise: a number whose shortest representation has more than 10 significant decimals
 * (0.29999999999999993, 0.1 + 0.2). Integers, rounded figures and raw amounts (decimal strings) are not noise.
 */
export const hasFloatNoise = (n: number): boolean => significantDecimals(n) > 10;

type Json = unknown;
const isObject = (x: Json): x is Record<string, Json> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isReason = (x: Json): boolean => typeof x === 'string' && x.length > 0;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const METHODOLOGY = /^[a-z][a-z-]*\.[a-z][a-z-]*@\d+\.\d+\.\d+$/;

/** A score record: a record with a `score` and its `components`. */
export const isScoreRecord = (x: Json): x is Record<string, Json> =>
  isObject(x) && 'score' in x && Array.isArray(x.components);

/** A daily record: a record of one UTC day (`date`). */
export const isDailyRecord = (x: Json): x is Record<string, Json> =>
  isObject(x) && typeof x.date === 'string' && DATE.test(x.date);

/** Keys that name a record's entity (API.md Payloads: the identifiers a client builds the next path from). */
const IDENTIFIERS = [
  'chain',
  'protocol',
  'version',
  'base_asset',
  'base_asset_symbol',
  'pool_address',
  'token_address',
  'oracle',
  'pair',
];
/** Keys that tell one entity's series from another's in a list of daily records. */
const SERIES_KEYS = [...IDENTIFIERS, 'repository', 'kind', 'id'];

// ---- schemas: which nulls are figures ------------------------------------------------------------------------

type Schema = TSchema & Record<string, unknown>;
const alternatives = (s: Schema | undefined): Schema[] =>
  !s ? [] : Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).flatMap(alternatives) : [s];

/**
 * Whether a null at this place of the schema stands for a figure: a number, or a group of figures (an object or
 * array); an identifier, label, date or flag (a string or boolean) is not a figure. Unknown places count as figures.
 */
function isFigurePlace(s: Schema | undefined): boolean {
  const alts = alternatives(s).filter((a) => a.type !== 'null');
  if (!alts.length) return true;
  return alts.some((a) => a.type === undefined || ['number', 'integer', 'object', 'array'].includes(String(a.type)));
}

function childSchema(s: Schema | undefined, key: string | number): Schema | undefined {
  for (const a of alternatives(s)) {
    if (typeof key === 'number' && a.type === 'array') return a.items as Schema | undefined;
    if (typeof key === 'string' && a.type === 'object') {
      const props = a.properties as Record<string, Schema> | undefined;
      if (props?.[key]) return props[key];
      const pattern = a.patternProperties as Record<string, Schema> | undefined;
      if (pattern) return Object.values(pattern)[0];
      if (isObject(a.additionalProperties)) return a.additionalProperties as Schema;
    }
  }
  return undefined;
}

// ---- the walk -------------------------------------------------------------------------------------------------

interface Frame {
  readonly value: Record<string, Json>;
  /** The key under which this object sits in its parent object (through an array: the array's key). */
  readonly key: string | undefined;
}

const fieldOf = (path: (string | number)[]) =>
  `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}`;

/** Why `key` of `frame` is null, if anything says: its record, a per-field reason, or its parent naming it. */
function nullExplained(key: string, frames: readonly Frame[]): boolean {
  const own = frames[frames.length - 1]!;
  const o = own.value;
  if (isReason(o.gap_reason)) return true;
  if (isObject(o.gap_reasons) && isReason(o.gap_reasons[key])) return true;
  if (isReason(o[`${key}_gap_reason`])) return true;
  // A dropped score component: its record's reasons may name it.
  const parent = frames[frames.length - 2];
  if (parent && own.key === 'components' && typeof o.name === 'string') {
    const reasons = parent.value.gap_reasons;
    if (isObject(reasons) && isReason(reasons[o.name])) return true;
  }
  // A nested group: its parent's reasons for the group, or the parent record's own gap (not a score's).
  if (parent && own.key !== undefined) {
    const p = parent.value;
    if (isObject(p.gap_reasons) && (isReason(p.gap_reasons[own.key]) || isReason(p.gap_reasons[`${own.key}.${key}`])))
      return true;
    if (isReason(p[`${own.key}_gap_reason`])) return true;
    const scored: boolean = isScoreRecord(p);
    if (!scored && isReason(p.gap_reason)) return true;
  }
  return false;
}

export interface CheckOptions {
  /** `meta.source` the document must carry (the sandbox with the world's chain id, `sandbox:github`). */
  readonly source: string;
  /** Data paths a model computes, from the methodology index: documents whose path matches carry its methodology. */
  readonly modelPaths?: readonly ModelPath[];
}

export interface ModelPath {
  readonly model: string;
  readonly pattern: RegExp;
}

/**
 * The data paths each model computes, as `docs/methodology/README.md` lists them ("Served by": `/data/…` globs of
 * the rows whose first column is a model id).
 */
export function modelPathsOf(index: string): ModelPath[] {
  const out: ModelPath[] = [];
  for (const line of index.split('\n')) {
    const model = line.match(/^\| `([a-z-]+\.[a-z-]+)` \|/)?.[1];
    if (!model) continue;
    for (const glob of line.matchAll(/`(\/data\/[^`]+)`/g)) {
      const body = glob[1]!
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.+');
      out.push({ model, pattern: new RegExp(`^${body}$`, 'i') });
    }
  }
  return out;
}

/** Every departure of one document from the vocabulary. */
export function checkDocument(doc: PublishedDocument, def: PathDef | undefined, options: CheckOptions): Violation[] {
  const out: Violation[] = [];
  const v = (rule: string, field: string, detail: string) => out.push({ rule, path: doc.path, field, detail });

  // meta
  if (!def) v('path-table', 'meta', `no row of the path table serves ${doc.path}`);
  if (doc.meta.source !== options.source)
    v('meta.source', 'meta.source', `${JSON.stringify(doc.meta.source)}, expected ${JSON.stringify(options.source)}`);
  if (!ISO.test(doc.meta.as_of)) v('meta.as_of', 'meta.as_of', `${doc.meta.as_of} is not ISO seconds`);
  const m = doc.meta.methodology;
  let hasScores = false;
  const walkForScores = (x: Json): void => {
    if (isScoreRecord(x)) hasScores = true;
    if (Array.isArray(x)) x.forEach(walkForScores);
    else if (isObject(x)) Object.values(x).forEach(walkForScores);
  };
  walkForScores(doc.data);
  for (const { model, pattern } of options.modelPaths ?? []) {
    if (pattern.test(doc.path) && !m?.startsWith(`${model}@`))
      v(
        'meta.methodology',
        'meta.methodology',
        `${String(m)} on a data path ${model} computes (docs/methodology/README.md)`,
      );
  }
  if ((def && isScorePath(def)) || hasScores) {
    if (!m)
      v(
        'meta.methodology',
        'meta.methodology',
        hasScores ? 'missing on a payload of scores' : 'missing on a score path',
      );
    else if (!METHODOLOGY.test(m)) v('meta.methodology', 'meta.methodology', `${m} is not <area>.<model>@x.y.z`);
    else if (def?.methodology && !m.startsWith(`${def.methodology}@`))
      v('meta.methodology', 'meta.methodology', `${m}, the row names ${def.methodology}`);
  }

  // histories: data[0] is the running day, stamped with as_of
  if (def && (def.shape === 'daily-7' || def.shape === 'score-history')) {
    if (!Array.isArray(doc.data)) v('history', '$', 'a history is an array of daily records');
    // (record 0 is the newest day of its series: `dailySeries` checks that it is the partial one)
    const first: Json = Array.isArray(doc.data) ? doc.data[0] : undefined;
    if (def.shape === 'score-history' && isObject(first) && first.timestamp !== doc.meta.as_of)
      v('as_of', fieldOf([0, 'timestamp']), `${String(first.timestamp)}, the payload's as_of is ${doc.meta.as_of}`);
  }

  const identifiers = def ? paramsOf(def, doc.path) : {};

  const walk = (x: Json, schema: Schema | undefined, path: (string | number)[], frames: Frame[]): void => {
    if (Array.isArray(x)) {
      if (x.length && x.every(isDailyRecord)) dailySeries(x as Record<string, Json>[], path);
      x.forEach((item, i) => {
        if (item === null) {
          if (isFigurePlace(childSchema(schema, i)) && !(frames.length && nullExplained(String(path.at(-1)), frames)))
            v('null-reason', fieldOf([...path, i]), 'null without a reason');
          return;
        }
        walk(item, childSchema(schema, i), [...path, i], frames);
      });
      return;
    }
    if (!isObject(x)) return;
    const parentKey = [...path].reverse().find((p) => typeof p === 'string') as string | undefined;
    const here: Frame[] = [...frames, { value: x, key: parentKey }];
    if (isScoreRecord(x)) scoreRecord(x, path, def, identifiers);
    if (isDailyRecord(x) && typeof x.partial !== 'boolean')
      v('partial', fieldOf([...path, 'partial']), 'a daily record without partial');
    for (const [k, value] of Object.entries(x)) {
      if (k === 'gap_reasons' || k === 'gap_reason' || k.endsWith('_gap_reason')) {
        reasons(k, value, [...path, k]);
        continue;
      }
      if (value === null) {
        // The open upper bound of a band (`min` 2, `max` null: 2 and above) is a bound, not an unknown figure.
        if (k === 'max' && typeof x.min === 'number') continue;
        const place = childSchema(schema, k);
        if (isFigurePlace(place) && !nullExplained(k, here))
          v('null-reason', fieldOf([...path, k]), 'null without a reason');
        continue;
      }
      walk(value, childSchema(schema, k), [...path, k], here);
    }
  };

  const reasons = (k: string, value: Json, path: (string | number)[]) => {
    const words = k === 'gap_reasons' ? (isObject(value) ? Object.values(value) : [value]) : [value];
    for (const w of words) {
      if (w !== null && !(GAP_REASONS as readonly Json[]).includes(w))
        v('gap-reason-word', fieldOf(path), `${JSON.stringify(w)} is not one of ${GAP_REASONS.join(', ')}`);
    }
  };

  // A series is the daily records of one entity (a list may hold several entities' days, or one day of many):
  // its newest day is the running one (partial), every other day is closed.
  const dailySeries = (records: Record<string, Json>[], path: (string | number)[]) => {
    const series = new Map<string, { record: Record<string, Json>; index: number }[]>();
    records.forEach((record, index) => {
      const key = JSON.stringify(SERIES_KEYS.map((k) => record[k] ?? null));
      series.set(key, [...(series.get(key) ?? []), { record, index }]);
    });
    for (const days of series.values()) {
      const newest = days.reduce((a, b) => (String(b.record.date) > String(a.record.date) ? b : a)).record.date;
      for (const { record, index } of days) {
        if (typeof record.partial !== 'boolean') continue;
        const running = record.date === newest;
        if (record.partial !== running)
          v(
            'partial',
            fieldOf([...path, index, 'partial']),
            `${record.partial} on ${String(record.date)}, ${running ? 'the running day' : 'a closed day'} of its series`,
          );
      }
    }
  };

  const noise = (x: Json, path: (string | number)[]) => {
    if (typeof x === 'number' && hasFloatNoise(x)) v('float-noise', fieldOf(path), String(x));
    else if (Array.isArray(x)) {
      x.forEach((y, i) => {
        noise(y, [...path, i]);
      });
    } else if (isObject(x)) for (const [k, y] of Object.entries(x)) noise(y, [...path, k]);
  };

  const scoreRecord = (
    r: Record<string, Json>,
    path: (string | number)[],
    row: PathDef | undefined,
    ids: Record<string, string>,
  ) => {
    for (const k of ['score', 'grade', 'components', 'methodology', 'timestamp', 'evidence', 'gap_reason']) {
      if (!(k in r)) v('score-record', fieldOf([...path, k]), 'missing');
    }
    if ('gap_reason' in r && (r.score === null) !== isReason(r.gap_reason))
      v(
        'score-record',
        fieldOf([...path, 'gap_reason']),
        `${JSON.stringify(r.gap_reason)} with score ${String(r.score)}`,
      );
    if (typeof r.methodology === 'string' && !METHODOLOGY.test(r.methodology))
      v('score-record', fieldOf([...path, 'methodology']), `${r.methodology} is not <area>.<model>@x.y.z`);
    if (typeof r.timestamp === 'string' && !ISO.test(r.timestamp))
      v('score-record', fieldOf([...path, 'timestamp']), `${r.timestamp} is not ISO seconds`);
    if (typeof r.evidence !== 'number' && 'evidence' in r)
      v('score-record', fieldOf([...path, 'evidence']), `${JSON.stringify(r.evidence)} is not a number`);
    // identifiers: a history's records name the entity of the path; a listing's records name theirs
    const topLevel = path.length <= 1;
    if (row?.shape === 'score-history' && topLevel) {
      for (const [param, value] of Object.entries(ids).filter(([p]) => IDENTIFIERS.includes(p))) {
        const named = [r[param], param === 'base_asset' ? r.base_asset_symbol : undefined]
          .filter((x) => typeof x === 'string')
          .some((x) => (x as string).toLowerCase() === value.toLowerCase());
        if (!named) v('identifiers', fieldOf([...path, param]), `the record does not name its ${param} (${value})`);
      }
    } else if (row?.shape === 'all-scores' && topLevel && !IDENTIFIERS.some((k) => typeof r[k] === 'string')) {
      v('identifiers', fieldOf(path), `a score record without identifiers (${IDENTIFIERS.join(', ')})`);
    }
    for (const k of ['score', 'evidence']) noise(r[k], [...path, k]);
    if (Array.isArray(r.components)) {
      r.components.forEach((c, i) => {
        if (!isObject(c)) return;
        noise(c.weight, [...path, 'components', i, 'weight']);
        noise(c.value, [...path, 'components', i, 'value']);
        noise(c.inputs, [...path, 'components', i, 'inputs']);
      });
    }
  };

  walk(doc.data, def?.payload as Schema | undefined, [], []);
  return out;
}

/** The path parameters of a document of `def` (page segments aside: documents of paged paths have none). */
export function paramsOf(def: PathDef, path: string): Record<string, string> {
  const t = def.template.split('/');
  const p = path.split('/');
  const out: Record<string, string> = {};
  t.forEach((seg, i) => {
    const m = seg.match(/^<(\w+)>$/);
    if (m && p[i] !== undefined && m[1] !== 'page_size' && m[1] !== 'page_skip') out[m[1]!] = decodeURIComponent(p[i]!);
  });
  return out;
}

/** The row of the path table a document path belongs to (its literal segments decide; paged rows without pages). */
export function rowOf(paths: readonly PathDef[], area: string, path: string): PathDef | undefined {
  const segs = path.split('/');
  const fits = paths.filter((def) => {
    if (def.area !== area) return false;
    let t = def.template.split('/');
    if (def.shape === 'paged') t = t.slice(0, -2);
    return (
      t.length === segs.length && t.every((s, i) => /^<\w+>$/.test(s) || s.toLowerCase() === segs[i]!.toLowerCase())
    );
  });
  const literals = (d: PathDef) => d.template.split('/').filter((s) => !/^<\w+>$/.test(s)).length;
  return fits.sort((a, b) => literals(b) - literals(a))[0];
}

/** Violations grouped as `rule · area path row · field pattern (array indices as [])`: count and one example. */
export function groupViolations(
  paths: readonly PathDef[],
  docs: readonly PublishedDocument[],
  violations: readonly Violation[],
): string[] {
  const areaOf = new Map(docs.map((d) => [d.path, d.area]));
  const groups = new Map<string, { count: number; example: Violation }>();
  for (const x of violations) {
    const row = rowOf(paths, areaOf.get(x.path) ?? '', x.path);
    const key = `${x.rule} · ${row?.id ?? x.path} · ${x.field.replace(/\[\d+\]/g, '[]')}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { count: 1, example: x });
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, g]) => `${key} ×${g.count}: ${g.example.detail} (e.g. ${g.example.path} ${g.example.field})`);
}
