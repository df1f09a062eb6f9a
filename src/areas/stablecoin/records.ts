/** The weekly record's shape per design (pure): the fields one design does not have, and a day without a snapshot. */
import { isoSeconds, utcDate } from '../../core/time.js';
import type { StablecoinRef } from './compute-types.js';
import type { StableSnapshot } from './facts.js';
import type { WeeklyRecordEntry } from './schema.js';

/** The weekly record's Maker-only flows (not applicable to Liquity). */
export const MAKER_FIELDS = [
  'system_debt',
  'surplus_buffer',
  'auctions_started',
  'auctions_reset',
  'auction_takes',
  'auction_dai_recovered',
] as const;

/** The weekly record's Liquity-only figures (not applicable to MakerDAO). */
export const LIQUITY_FIELDS = [
  'stability_pool_deposits',
  'stability_pool_coverage',
  'redemptions',
  'redeemed',
  'redemption_rate',
  'redeemable_within_exit',
  'tcr',
  'tcr_above_critical',
  'recovery_mode',
] as const;

export function emptyRecord(
  ref: StablecoinRef,
  token: string,
  reader: Record<string, string>,
  t: number,
  partial: boolean,
) {
  const nullFields = [
    'total_supply',
    'total_supply_raw',
    'circulating_supply',
    'total_debt',
    'total_debt_base',
    'backed_debt',
    'total_debt_usd',
    'total_collateral_usd',
    'collateral_ratio',
    'number_unique_wallets',
    'holders',
    'minted',
    'burned',
    'dex_liquidity_usd',
    'peg_mean_price',
    'peg_max_deviation',
    'peg_hours_outside_band',
    'peg_quote_token_address',
    'peg_quote_price_usd',
    'peg_quote_price_source',
    'peg_quote_price_source_ref',
    'psm_holdings_usd',
    ...LIQUITY_FIELDS,
    ...MAKER_FIELDS,
  ] as const;
  return {
    chain: ref.chain,
    protocol: ref.protocol,
    name: ref.name,
    token_address: token,
    ...reader,
    date: utcDate(t),
    partial,
    as_of: isoSeconds(t),
    snapshot_block: null,
    gap_reason: 'no_data',
    ...Object.fromEntries(nullFields.map((f) => [f, null])),
    kind_shares: [],
    depth: [],
    peg_hours_priced: 0,
    psm_fees: [],
    liquidations: 0,
    liquidated_debt: 0,
    gap_reasons: Object.fromEntries(nullFields.map((f) => [f, 'no_data'])),
  } as unknown as WeeklyRecordEntry;
}

export function readerOf(s: StableSnapshot): Record<string, string> {
  return s.design === 'maker-mcd' ? { vat_address: s.vat } : { trove_manager_address: s.troveManager };
}
