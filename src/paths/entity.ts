import type { UnknownEntity } from './types.js';

/** Helpers for entity checks: name the valid values inline when few, or the listing path that names them. */
export function unknownEntity(message: string): UnknownEntity {
  return { message };
}

export function oneOf(what: string, value: string, valid: readonly string[]): UnknownEntity | undefined {
  if (valid.includes(value)) return undefined;
  const list = valid.length > 0 ? [...valid].sort().join(', ') : 'none yet';
  return unknownEntity(`no ${what} ${JSON.stringify(value)}; supported: ${list}`);
}

export function seeListing(what: string, value: string, listing: string): UnknownEntity {
  return unknownEntity(`no ${what} ${JSON.stringify(value)}; see ${listing}`);
}
