/**
 * Rows written in chunks: one INSERT (or one `IN` list) per chunk, so that a statement stays below the bound
 * parameters a database allows (SQLite's 32,766 since 3.32; PostgreSQL's 65,535) and a large write does not build
 * one huge statement. Every multi-row write of the service goes through `inChunks`.
 */

/** Rows per statement unless a caller says otherwise: 500 rows of 60 columns stay below SQLite's bound. */
export const DEFAULT_CHUNK_ROWS = 500;

/** Calls `write` with consecutive slices of `rows`, `size` at most each, in order, one after the other. */
export async function inChunks<T>(
  rows: readonly T[],
  write: (chunk: T[]) => Promise<unknown>,
  size: number = DEFAULT_CHUNK_ROWS,
): Promise<void> {
  if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, got ${size}`);
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
}
