/**
 * Discord snowflakes: 64-bit ids whose top 42 bits are milliseconds since the Discord epoch (2015-01-01), then a
 * worker id (5 bits), a process id (5 bits) and an increment (12 bits). Ids of one channel are ordered by creation,
 * ids of the same millisecond by their low bits; they travel as decimal strings (they exceed 2^53).
 */

/** 2015-01-01T00:00:00Z in Unix milliseconds. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

const SNOWFLAKE = /^\d{1,20}$/;

export function isSnowflake(value: string): boolean {
  return SNOWFLAKE.test(value) && BigInt(value) < 2n ** 64n;
}

/** The creation time of a snowflake, in Unix milliseconds. */
export function snowflakeToMs(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/**
 * A snowflake of instant `ms` with the given low 22 bits (worker, process, increment). With `low = 0` it is the
 * smallest id of that millisecond: `after: msToSnowflake(t) - 1` is "from instant t on" in Discord's paging.
 */
export function msToSnowflake(ms: number, low = 0): string {
  if (!Number.isInteger(ms) || ms < DISCORD_EPOCH_MS)
    throw new RangeError(`no snowflake before the Discord epoch: ${ms}`);
  if (!Number.isInteger(low) || low < 0 || low >= 1 << 22) throw new RangeError(`low bits out of range: ${low}`);
  return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | BigInt(low)).toString();
}

/** The smallest snowflake of the UTC day that starts at `dayStartMs`, minus one: `after` for "that day and later". */
export function snowflakeBefore(ms: number): string {
  const id = BigInt(msToSnowflake(Math.max(ms, DISCORD_EPOCH_MS)));
  return (id === 0n ? 0n : id - 1n).toString();
}

/** Orders snowflakes numerically (string comparison is wrong across lengths). */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function maxSnowflake(a: string, b: string): string {
  return compareSnowflakes(a, b) >= 0 ? a : b;
}
