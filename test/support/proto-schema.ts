import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * JSON Schemas (2019-09) of protobuf messages, for checking a service's JSON answers against the `.proto` files its
 * owners publish (Reddit's in `@devvit/protos`). The JSON mapping is proto3's (protobuf.dev, "ProtoJSON Format"),
 * with the field names as the `.proto` writes them (Reddit's API sends `created_utc`, the `.proto` field's own name;
 * proto3 JSON parsers accept it beside `createdUtc`):
 * - a scalar is its JSON type (64-bit integers as a number or a decimal string), an enum its value name or number,
 *   `bytes` a string; the wrappers (`google.protobuf.StringValue`, …) their scalar; `Struct` an object, `Value`
 *   anything, `ListValue` an array, `Any` an object; repeated fields arrays, maps objects;
 * - `null` is accepted for every field (proto3 JSON: "null … is treated as the default value");
 * - a message is a closed object: proto3 JSON parsers "should reject unknown fields by default", so a field the
 *   message does not declare is a deviation (`closed: false` leaves them open).
 */

type Schema = Record<string, unknown>;

const require = createRequire(import.meta.url);

/** Loads `.proto` files (paths relative to `roots`, tried in order); google/protobuf imports from protobufjs. */
export async function loadProtos(roots: readonly string[], files: readonly string[]): Promise<protobuf.Root> {
  const googleDir = path.dirname(require.resolve('protobufjs/package.json'));
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    if (target.startsWith('google/protobuf/')) {
      const bundled = path.join(googleDir, target);
      return existsSync(bundled) ? bundled : target;
    }
    for (const dir of roots) {
      const candidate = path.join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return protobuf.util.path.resolve(origin, target);
  };
  await root.load([...files], { keepCase: true });
  root.resolveAll();
  return root;
}

const INT64 = { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] };
const SCALARS: Record<string, Schema> = {
  string: { type: 'string' },
  bytes: { type: 'string' },
  bool: { type: 'boolean' },
  double: { type: 'number' },
  float: { type: 'number' },
  int32: { type: 'integer' },
  uint32: { type: 'integer', minimum: 0 },
  sint32: { type: 'integer' },
  fixed32: { type: 'integer', minimum: 0 },
  sfixed32: { type: 'integer' },
  int64: INT64,
  uint64: INT64,
  sint64: INT64,
  fixed64: INT64,
  sfixed64: INT64,
};
const WELL_KNOWN: Record<string, Schema> = {
  '.google.protobuf.StringValue': { type: 'string' },
  '.google.protobuf.BytesValue': { type: 'string' },
  '.google.protobuf.BoolValue': { type: 'boolean' },
  '.google.protobuf.DoubleValue': { type: 'number' },
  '.google.protobuf.FloatValue': { type: 'number' },
  '.google.protobuf.Int32Value': { type: 'integer' },
  '.google.protobuf.UInt32Value': { type: 'integer', minimum: 0 },
  '.google.protobuf.Int64Value': INT64,
  '.google.protobuf.UInt64Value': INT64,
  '.google.protobuf.Struct': { type: 'object' },
  '.google.protobuf.Value': {},
  '.google.protobuf.ListValue': { type: 'array' },
  '.google.protobuf.Any': { type: 'object' },
  '.google.protobuf.Timestamp': { type: 'string' },
  '.google.protobuf.Duration': { type: 'string' },
  '.google.protobuf.Empty': { type: 'object' },
};

const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

/**
 * The JSON Schema definitions (`$defs`, by the message's full name without the leading dot) of `messages` and
 * every message they use. Refer to one as `<id>#/$defs/<full.name>`.
 */
export function protoJsonSchemas(
  root: protobuf.Root,
  messages: readonly string[],
  id: string,
  options: { closed?: boolean } = {},
): Record<string, Schema> {
  const defs: Record<string, Schema> = {};
  const ref = (type: protobuf.Type) => ({ $ref: `${id}#/$defs/${type.fullName.slice(1)}` });
  const fieldSchema = (f: protobuf.Field): Schema => {
    const resolved = f.resolvedType;
    let one: Schema;
    if (resolved instanceof protobuf.Enum) {
      one = { anyOf: [{ enum: Object.keys(resolved.values) }, { enum: Object.values(resolved.values) }] };
    } else if (resolved instanceof protobuf.Type) {
      const known = WELL_KNOWN[resolved.fullName];
      if (known) one = known;
      else {
        visit(resolved);
        one = ref(resolved);
      }
    } else {
      one = SCALARS[f.type] ?? {};
    }
    if (f instanceof protobuf.MapField) return nullable({ type: 'object', additionalProperties: nullable(one) });
    if (f.repeated) return nullable({ type: 'array', items: one });
    return nullable(one);
  };
  const visit = (type: protobuf.Type) => {
    const name = type.fullName.slice(1);
    if (defs[name] || WELL_KNOWN[type.fullName]) return;
    defs[name] = {};
    const properties: Record<string, Schema> = {};
    for (const f of type.fieldsArray) properties[f.name] = fieldSchema(f);
    defs[name] = {
      type: 'object',
      properties,
      ...(options.closed === false ? {} : { unevaluatedProperties: false }),
    };
  };
  for (const m of messages) visit(root.lookupType(m));
  return defs;
}
