import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck, ValueError } from '@sinclair/typebox/compiler';

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
