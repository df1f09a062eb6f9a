/**
 * Exact token amounts (bigint, raw units) and their conversion to floats for presentation (DESIGN.md convention 7):
 * arithmetic on amounts stays in bigint; a float is made once, at the end, correctly rounded from the exact value.
 */

const POW10: bigint[] = [];

/** 10^n as a bigint (n ≥ 0, integer). */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`pow10: ${n} is not a non-negative integer`);
  let cached = POW10[n];
  if (cached === undefined) {
    cached = 10n ** BigInt(n);
    POW10[n] = cached;
  }
  return cached;
}

export function absBig(x: bigint): bigint {
  return x < 0n ? -x : x;
}

/** The exact decimal string of a raw amount: `formatUnits(1234500n, 6)` = `'1.2345'` (no trailing zeros). */
export function formatUnits(raw: bigint, decimals: number): string {
  const negative = raw < 0n;
  const digits = absBig(raw).toString();
  if (decimals === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  const text = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return negative ? `-${text}` : text;
}

/**
 * The raw amount of an exact non-negative decimal string (`parseUnits('1.2345', 6)` = `1234500n`); undefined for
 * anything else (a sign, an exponent, more fraction digits than `decimals`).
 */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) return undefined;
  return BigInt(m[1]!) * pow10(decimals) + (fraction ? BigInt(fraction.padEnd(decimals, '0')) : 0n);
}

/** A raw amount normalised by decimals, as the float nearest to the exact value. */
export function toFloat(raw: bigint, decimals = 0): number {
  return Number(formatUnits(raw, decimals));
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** num / den as the float nearest to the exact quotient (within one unit in the last place). */
export function ratioToFloat(num: bigint, den: bigint): number {
  if (den === 0n) throw new RangeError('ratioToFloat: division by zero');
  if (num === 0n) return 0;
  const negative = num < 0n !== den < 0n;
  const n = absBig(num);
  const d = absBig(den);
  // Scale so that the integer quotient carries 64 significant bits (more than a double's 53), then shift back.
  const shift = 64 - (bitLength(n) - bitLength(d));
  const quotient = shift >= 0 ? (n << BigInt(shift)) / d : n / (d << BigInt(-shift));
  const half = Math.trunc(shift / 2);
  const value = Number(quotient) * 2 ** -half * 2 ** -(shift - half);
  return negative ? -value : value;
}

/** 2^96: the fixed-point unit of Uniswap V3's `sqrtPriceX96`. */
export const Q96 = 2n ** 96n;

/**
 * Uniswap V3 price, token1 per token0, normalised by decimals: (sqrtPriceX96 / 2^96)² × 10^(decimals0 − decimals1).
 */
export function sqrtPriceX96ToPrice(sqrtPriceX96: bigint, decimals0: number, decimals1: number): number {
  return ratioToFloat(sqrtPriceX96 * sqrtPriceX96 * pow10(decimals0), Q96 * Q96 * pow10(decimals1));
}

/** Constant-product price, token1 per token0, normalised: (reserve1 / 10^decimals1) / (reserve0 / 10^decimals0). */
export function reservesToPrice(
  reserve0: bigint,
  reserve1: bigint,
  decimals0: number,
  decimals1: number,
): number | null {
  if (reserve0 <= 0n || reserve1 < 0n) return null;
  return ratioToFloat(reserve1 * pow10(decimals0), reserve0 * pow10(decimals1));
}

/**
 * Uniswap V3 virtual reserves of the active range, raw units: x = L / √P, y = L × √P (with √P = sqrtPriceX96 / 2^96),
 * floored. They are the depth the current price sees, not the pool's token balances.
 */
export function v3VirtualReserves(liquidity: bigint, sqrtPriceX96: bigint): { reserve0: bigint; reserve1: bigint } {
  if (sqrtPriceX96 <= 0n || liquidity <= 0n) return { reserve0: 0n, reserve1: 0n };
  return { reserve0: (liquidity * Q96) / sqrtPriceX96, reserve1: (liquidity * sqrtPriceX96) / Q96 };
}
