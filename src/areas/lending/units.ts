/** `raw / 10^decimals` as a float (exact enough for USD figures; raw strings stay exact in the facts). */
export function toUnits(raw: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(raw / scale) + Number(raw % scale) / Number(scale);
}
