import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler, type ValueError } from '@sinclair/typebox/compiler';

const compiled = new Map<TSchema, TypeCheck<TSchema>>();

function compiledOf(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c;
}

/** Whether `value` matches `schema` (compiled once, as `checkAnswer`'s). */
export const matches = <T extends TSchema>(schema: T, value: unknown): value is Static<T> =>
  compiledOf(schema).Check(value);

/**
 * A source's answer checked against its schema (each schema compiled once, for every source): the answer as the
 * schema's type, or the error `fail` makes of where it departs from it (`schemaMismatch`).
 */
export function checkAnswer<T extends TSchema>(
  schema: T,
  value: unknown,
  fail: (path: string, message: string) => Error,
): Static<T> {
  const c = compiledOf(schema);
  if (c.Check(value)) return value as Static<T>;
  const { path, message } = schemaMismatch(c, value);
  throw fail(path, message);
}

/**
 * Where a payload that failed its compiled schema departs from it, for the sources' schema errors (GitHub, Discord,
 * Reddit): the deepest offending field. A union (`T | null`) reports itself; the most specific field is the deepest
 * error among its variants'.
 */
export function schemaMismatch<T extends TSchema>(
  check: TypeCheck<T>,
  data: unknown,
): { path: string; message: string } {
  const first = check.Errors(data).First();
  const cause = first ? deepest(first) : undefined;
  return { path: cause?.path ?? '', message: cause?.message ?? 'does not match the schema' };
}

function deepest(error: ValueError): ValueError {
  let best = error;
  for (const variant of error.errors) {
    const first = variant.First();
    if (!first) continue;
    const candidate = deepest(first);
    if (candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}
