/**
 * The reasons a published figure or score is null (docs/vocabulary.md "Unknown figures"): one word per cause, the
 * same in every area. An area names the cause in these words only; details go beside them (never instead).
 */
export const GAP_REASONS = {
  no_data: 'nothing observed for the figure (no event, no snapshot in the window, not observable for a past day)',
  no_price: 'a USD figure needs a price the price policy does not give',
  insufficient_evidence: 'a score or aggregate with less than `MIN_EVIDENCE` of its weight known',
  not_applicable: 'the figure has no meaning here (a parameter the design lacks)',
  not_deployed: 'the protocol, market, pool or repository did not exist on this chain at that instant',
  not_listed: 'the market does not list the asset',
  stale_source: 'the only source is older than its freshness budget',
  source_error: 'the source answered with an error (a reverted call, a feed that cannot be resolved)',
  no_positions: 'a ratio over positions where there are none',
  no_liquidity: 'a depth or price where the pool holds nothing',
  no_members: 'an aggregate over pools, markets or repositories that has none',
  partial_history:
    'the figure needs a whole history and the part read does not explain it (a replay that starts after the deployment)',
  listing_cap:
    "the source's listing ends before the span the figure needs (Reddit's ~1,000-item cap): part of the span cannot be read",
} as const;

export type GapReason = keyof typeof GAP_REASONS;

export const GAP_REASON_WORDS = Object.keys(GAP_REASONS) as GapReason[];

/**
 * The per-field reasons of a partly known record (`gap_reasons`): `reasonOf(field)` for each of `fields` whose value
 * is null. A field the caller has a better reason for says so through `reasonOf`.
 */
export function nullFieldReasons<T extends object>(
  record: T,
  fields: readonly (keyof T & string)[],
  reasonOf: (field: keyof T & string) => GapReason,
): Record<string, GapReason> {
  const out: Record<string, GapReason> = {};
  for (const f of fields) if (record[f] === null) out[f] = reasonOf(f);
  return out;
}
