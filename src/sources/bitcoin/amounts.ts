/**
 * Bitcoin Core prints amounts as BTC with 8 decimals (`0.00003740`); JSON parsers read them as doubles. The exact
 * satoshi count is `Math.round(btc * 1e8)` for every amount a node can print (|amount| ≤ 21,000,000 BTC):
 *
 * - the parsed double x' is the nearest double to d/1e8 (d the satoshi count): |x' − d/1e8| ≤ ulp(x')/2, and
 *   x' < 2^25 gives ulp ≤ 2^-28, so the error is at most 2^-29 BTC;
 * - times 1e8 that is at most 1e8 × 2^-29 ≈ 0.186 sat; the product x' × 1e8 ≤ 2.1e15 < 2^51 is itself rounded to a
 *   double with ulp ≤ 0.25, adding at most 0.125;
 * - so the computed product is within 0.311 of the integer d, and rounding gives d exactly.
 *
 * Larger magnitudes (no node prints them) are refused rather than rounded.
 */
export const SATS_PER_BTC = 100_000_000;
export const MAX_MONEY_BTC = 21_000_000;

export class AmountError extends Error {
  constructor(value: unknown) {
    super(`not a Bitcoin amount: ${JSON.stringify(value)}`);
    this.name = 'AmountError';
  }
}

/** Satoshis of an amount in BTC as a node prints it (exact, see above). */
export function btcToSats(btc: number): number {
  if (typeof btc !== 'number' || !Number.isFinite(btc) || Math.abs(btc) > MAX_MONEY_BTC) throw new AmountError(btc);
  return Math.round(btc * SATS_PER_BTC);
}

/** The BTC amount a node would print for a satoshi count (for the stand-in): the double nearest to sats / 1e8. */
export function satsToBtc(sats: number | bigint): number {
  const n = typeof sats === 'bigint' ? Number(sats) : sats;
  if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_MONEY_BTC * SATS_PER_BTC) throw new AmountError(String(sats));
  // Division of two exact doubles is correctly rounded: the nearest double to n / 1e8, what a parser of Core's
  // decimal text gives.
  return n / SATS_PER_BTC;
}
