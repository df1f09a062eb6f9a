/**
 * Exact decimals for the simulated venues: an amount is an integer count of units of 10^-decimals (decimals may be
 * negative: a step of 100000 PEPE is 10^5), written as the shortest decimal string (no trailing zeros, no exponent),
 * the way the venues' APIs spell numbers.
 */

/** `units` × 10^-decimals as a plain decimal string. */
export function decimalString(units: bigint | number, decimals: number): string {
  let n = typeof units === 'bigint' ? units : BigInt(units);
  if (decimals <= 0) return (n * 10n ** BigInt(-decimals)).toString();
  const negative = n < 0n;
  if (negative) n = -n;
  const digits = n.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** 10^-decimals as a number (a tick or a step). */
export function unit(decimals: number): number {
  return Number(decimalString(1n, decimals));
}

/** A number rounded to whole units of 10^-decimals. */
export function toUnits(value: number, decimals: number): number {
  return Math.round(value / unit(decimals));
}
