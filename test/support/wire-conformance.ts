import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';

// CommonJS under ESM interop: the function may sit under `default`.
const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv2019,
) => void;

/**
 * Checks a stand-in's answers against the description its real service's owners publish (docs/standins.md,
 * "Conformance"). One validator for every service: JSON Schema 2019-09 through Ajv, with the descriptions'
 * dialects translated first.
 *
 * - OpenAPI 3.0 schemas (GitHub's REST description) carry `nullable: true`, which JSON Schema spells as a `null`
 *   type; `openApi30ToJsonSchema` rewrites it and turns `#/components/schemas/x` references into references to a
 *   registered document.
 * - **Closed objects**: every object schema that declares `properties` also gets `unevaluatedProperties: false`.
 *   A stand-in serves what its service's owners describe and nothing it made up; and unions of open objects
 *   (GitHub's `oneOf` of event payloads, a commit's `oneOf` user or empty object) would otherwise match several
 *   branches at once, which `oneOf` refuses. A description that declares no properties (a free-form object) stays
 *   open. Members of an `allOf` are left open and the `allOf` itself is closed (2019-09 evaluates across them).
 * - Formats are checked (`date-time`, `uri`, `email`, …); formats JSON Schema does not define (`int64`,
 *   `timestamp`, `uint64`) are accepted as annotations.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const ANNOTATION_FORMATS = ['int64', 'int32', 'timestamp', 'uint64', 'byte', 'hex', 'float', 'double'];

export interface Conformance {
  /**
   * Errors of `value` against the registered schema `ref` (`<id>#/…`) or a JSON Schema (2019-09) object that may
   * refer to the registered ones, as `path: message` lines; empty when it conforms.
   */
  errors(ref: string | object, value: unknown): string[];
}

export function conformance(documents: Readonly<Record<string, Schema>>): Conformance {
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const f of ANNOTATION_FORMATS) ajv.addFormat(f, true);
  for (const [id, schema] of Object.entries(documents)) ajv.addSchema({ ...schema, $id: id });
  const compiled = new Map<string | object, ValidateFunction>();
  return {
    errors(ref, value) {
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile(typeof ref === 'string' ? { $ref: ref } : ref);
        compiled.set(ref, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map(describe);
    },
  };
}

function describe(e: ErrorObject): string {
  const extra =
    e.keyword === 'unevaluatedProperties'
      ? ` (${String((e.params as { unevaluatedProperty?: string }).unevaluatedProperty)})`
      : e.keyword === 'required'
        ? ''
        : ` [${e.schemaPath}]`;
  return `${e.instancePath || '/'}: ${e.message ?? e.keyword}${extra}`;
}

/**
 * An OpenAPI 3.0 schema as JSON Schema 2019-09: `nullable` as a `null` type (or a union with null where the schema
 * names no type), `#/components/schemas/x` → `<documentId>#/$defs/x`, object schemas closed (see above).
 */
export function openApi30ToJsonSchema(schema: Json, documentId: string, inAllOf = false): Json {
  if (Array.isArray(schema)) return schema.map((s) => openApi30ToJsonSchema(s, documentId));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/components\/schemas\//, `${documentId}#/$defs/`);
    } else if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, s]) => [name, openApi30ToJsonSchema(s, documentId)]),
      );
    } else if (key === 'allOf' && Array.isArray(value)) {
      out.allOf = value.map((s) => openApi30ToJsonSchema(s, documentId, true));
    } else {
      out[key] = openApi30ToJsonSchema(value, documentId);
    }
  }
  const closes = ('properties' in schema && !inAllOf) || ('allOf' in schema && !inAllOf);
  if (closes && !('additionalProperties' in schema)) out.unevaluatedProperties = false;
  if (schema.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else {
      return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

/** JSON Schema (2019-09) that describes an object by its declared properties, closed: a hand-written schema's helper. */
export function closedObject(properties: Readonly<Record<string, Json>>, required: readonly string[] = []): Schema {
  return {
    type: 'object',
    properties: properties as Schema,
    required: [...required],
    unevaluatedProperties: false,
  };
}

/** One way a described answer may differ from a given one: `path` and what changed there. */
export interface Variant {
  readonly path: string;
  readonly change: string;
  readonly value: unknown;
}

/**
 * Every answer an OpenAPI 3.0 description allows that differs from `value` (itself a conforming answer) in one
 * place: an optional property left out, a nullable one null, a `oneOf`/`anyOf` member replaced by `{}` where another
 * branch accepts an empty object (GitHub's `empty-object` user). Used to hold a reader's schemas to "accept what the
 * description allows". `resolve` follows `#/components/schemas/…`; `branchMatches(branch, v)` tells which branch of
 * a union a value takes; arrays are followed into their first `maxItems` items.
 */
export function openApi30Variants(
  value: unknown,
  schema: Schema,
  resolve: (ref: string) => Schema,
  branchMatches: (branch: Schema, v: unknown) => boolean,
  maxItems = 3,
): Variant[] {
  const out: Variant[] = [];
  const clone = <T>(v: T): T => structuredClone(v);
  const setAt = (
    root: unknown,
    path: readonly (string | number)[],
    replace: (parent: Record<string | number, unknown>, key: string | number) => void,
  ) => {
    const copy = clone(root);
    let at = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
    replace(at, path.at(-1)!);
    return copy;
  };
  const walk = (v: unknown, raw: Schema, path: (string | number)[]) => {
    const s = raw.$ref ? resolve(raw.$ref as string) : raw;
    if (v === null) return;
    if (s.nullable === true && path.length) {
      out.push({
        path: path.join('/'),
        change: 'null',
        value: setAt(value, path, (p, k) => {
          p[k] = null;
        }),
      });
    }
    const union = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    if (union) {
      for (const branch of union) {
        if (branchMatches(branch, v)) walk(v, branch, path);
        else if (path.length && branchMatches(branch, {}) && !(typeof v === 'object' && v && !Object.keys(v).length)) {
          out.push({
            path: path.join('/'),
            change: '{}',
            value: setAt(value, path, (p, k) => {
              p[k] = {};
            }),
          });
        }
      }
      return;
    }
    for (const member of (s.allOf ?? []) as Schema[]) walk(v, member, path);
    if (Array.isArray(v) && s.items) {
      for (const [i, item] of v.slice(0, maxItems).entries()) walk(item, s.items as Schema, [...path, i]);
      return;
    }
    if (typeof v === 'object' && s.properties) {
      const required = new Set((s.required ?? []) as string[]);
      for (const [key, propSchema] of Object.entries(s.properties as Record<string, Schema>)) {
        if (!(key in (v as object))) continue;
        if (!required.has(key)) {
          out.push({
            path: [...path, key].join('/'),
            change: 'absent',
            value: setAt(value, [...path, key], (p, k) => {
              delete p[k];
            }),
          });
        }
        walk((v as Record<string, unknown>)[key], propSchema, [...path, key]);
      }
    }
  };
  walk(value, schema, []);
  return out;
}
