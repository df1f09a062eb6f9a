/**
 * Payload schemas of the stablecoin paths (DESIGN.md convention 3). `compute.ts` produces exactly these shapes.
 * Legacy names (reference/legacy-api.md §2.7) are kept: `name`, `total_collateral_usd`, `total_debt_usd`,
 * `total_debt_base`, `number_unique_wallets`, `token_address`, `collateral_assets`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, DailyScoreRecord, Fraction, Iso, IsoDate, Nullable, ScoreHistory } from '../kit/schema.js';

const GapReasons = Type.Record(Type.String(), Type.String(), {
  description: 'For each null figure of the record, why (no_data, no_price, no_liquidity, not_applicable…)',
});
const Amount = (description: string) => Nullable(Type.Number({ description }));
const UsdOrNull = (description: string) => Nullable(Type.Number({ minimum: 0, description }));

/** Traceability: what a record read (the issue's `token_address`, `vat_address` or `trove_manager_address`). */
const identity = {
  chain: Type.String(),
  protocol: Type.String(),
  name: Type.String({ description: 'The protocol’s display name (legacy `Name`)' }),
  token_address: Type.String({ description: 'The stablecoin’s token contract, lowercase' }),
  vat_address: Type.Optional(Type.String({ description: 'MakerDAO: the Vat read (from the Chainlog)' })),
  trove_manager_address: Type.Optional(Type.String({ description: 'Liquity: the TroveManager read' })),
};

export const DepthEntry = Type.Object({
  price_move: Type.Number({ description: 'Fall of the stablecoin’s price in its USD-stablecoin pools: 0.01 = 1 %' }),
  sell_amount: Type.Number({ description: 'Stablecoins to sell into those pools to move the price that far' }),
  sell_usd: UsdOrNull('sell_amount × the stablecoin’s USD price'),
  reachable: Type.Boolean({
    description: 'False when some pool cannot move that far (its figure is its largest sale)',
  }),
});

export const KindShare = Type.Object({
  kind: Type.String({
    description: 'crypto, psm, rwa, credit-line; Maker also system: the debt no collateral backs (Vat.vice)',
  }),
  debt: Type.Number({ description: 'Stablecoin debt against collateral of this kind' }),
  debt_share: Fraction('debt / total debt'),
  collateral_usd: UsdOrNull('Collateral of this kind at market prices'),
});

export const WeeklyRecord = Type.Object({
  ...identity,
  date: IsoDate(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  as_of: Iso('The instant the record’s state figures hold: meta.as_of for the running day, else the day’s snapshot'),
  snapshot_block: Nullable(Type.Integer({ description: 'Block of the state read for the record' })),
  gap_reason: Nullable(Type.String({ description: 'Why the whole record is null (no_data: no snapshot that day)' })),
  total_supply: Amount('Token totalSupply, in token units'),
  total_supply_raw: Nullable(Type.String()),
  circulating_supply: Amount(
    'total_supply minus what contracts of the protocol hold (Maker: Chainlog contracts; Liquity: the GasPool)',
  ),
  total_debt: Amount(
    'Debt the protocol’s positions owe, in stablecoin units (Maker: Vat.debt; Liquity: getEntireSystemDebt)',
  ),
  total_debt_base: Amount('Legacy name of total_debt'),
  backed_debt: Amount(
    'Debt owed against collateral (Maker: Σ over collateral types of Art × rate; Liquity: total_debt)',
  ),
  system_debt: Amount('Maker: debt no collateral backs, the Vat’s vice; total_debt = backed_debt + system_debt'),
  surplus_buffer: Amount('Maker: the Vow’s DAI less its sin in the Vat (negative when the system is in deficit)'),
  total_debt_usd: UsdOrNull('total_debt × the stablecoin’s USD price'),
  total_collateral_usd: UsdOrNull('All collateral at market prices (null when any is unpriced)'),
  collateral_ratio: Fraction(
    'Crypto collateral USD / debt against it (Maker: crypto types only; Liquity: TCR at market)',
  ),
  kind_shares: Type.Array(KindShare),
  number_unique_wallets: Nullable(Count('Open positions’ distinct owners (urns, troves)')),
  holders: Nullable(Count('Addresses with a positive balance, from a replay of every Transfer')),
  minted: Amount('Minted during the day up to as_of (Transfer from 0x0)'),
  burned: Amount('Burned during the day up to as_of (Transfer to 0x0)'),
  dex_liquidity_usd: UsdOrNull('Value held by the stablecoin’s pools against USD stablecoins'),
  depth: Type.Array(DepthEntry, { description: 'Depth to move the price down 1, 2 and 5 %' }),
  peg_mean_price: Amount('Mean hourly USD price of the day'),
  peg_max_deviation: Fraction('Largest |hourly price − 1|'),
  peg_hours_outside_band: Nullable(Count('Hours whose price is outside ±0.5 %')),
  peg_hours_priced: Count('Hours of the day with a price'),
  peg_quote_token_address: Nullable(
    Type.String({
      description: 'The USD stablecoin the peg is read against at as_of (the first quote with a pool price)',
    }),
  ),
  peg_quote_price_usd: UsdOrNull(
    'The quote’s USD price by the one price policy at as_of (its fresh feed, else the DEX price): each hourly price of the peg is the stablecoin’s pool price in the quote × the quote’s policy price then',
  ),
  peg_quote_price_source: Nullable(Type.String({ description: 'oracle (a USD feed) or dex' })),
  peg_quote_price_source_ref: Nullable(Type.String({ description: 'What was read: the feed or the DEX pools' })),
  psm_holdings_usd: UsdOrNull('Maker: collateral held by the PSMs'),
  psm_fees: Type.Array(
    Type.Object({ ilk: Type.String(), tin: Nullable(Type.Number()), tout: Nullable(Type.Number()) }),
  ),
  stability_pool_deposits: Amount('Liquity: LUSD in the Stability Pool'),
  stability_pool_coverage: Fraction('Liquity: Stability Pool deposits / total debt'),
  redemptions: Nullable(Count('Liquity: redemptions during the day')),
  redeemed: Amount('Liquity: LUSD redeemed during the day'),
  redemption_rate: Fraction('Liquity: redemption fee rate at the snapshot'),
  redeemable_within_exit: Amount(
    'Liquity: LUSD one redemption can take at a fee of at most the exit move (2 %), by the fee formula at the snapshot block (floor + decayed base rate + redeemed / (system debt × BETA))',
  ),
  tcr: Fraction('Liquity: total collateral ratio at the system’s price (getTCR)'),
  tcr_above_critical: Nullable(Type.Boolean({ description: 'Liquity: TCR ≥ 150 %' })),
  recovery_mode: Nullable(Type.Boolean({ description: 'Liquity: checkRecoveryMode' })),
  liquidations: Count('Liquidations during the day (Maker: Bark; Liquity: TroveLiquidated)'),
  liquidated_debt: Type.Number({ description: 'Debt liquidated during the day, stablecoin units' }),
  auctions_started: Nullable(Count('Maker: Clipper auctions kicked during the day (Kick)')),
  auctions_reset: Nullable(Count('Maker: auctions restarted during the day (Redo)')),
  auction_takes: Nullable(Count('Maker: keepers’ purchases during the day (Take)')),
  auction_dai_recovered: Amount('Maker: DAI the keepers paid during the day (Σ Take owe)'),
  gap_reasons: GapReasons,
});

export const Band = Type.Object({
  band: Type.String({ description: 'The band as text: <1.1, 1.1-1.3, …, >3' }),
  min: Type.Number({ description: 'Collateral ratio at market, lower bound (inclusive)' }),
  max: Nullable(Type.Number({ description: 'Upper bound (exclusive); null: no upper bound' })),
  positions: Count(),
  debt: Type.Number(),
});

export const Liquidatable = Type.Object({
  price_drop: Type.Number({ description: '0.1 = the collateral’s market price falls by 10 %' }),
  debt: Type.Number({ description: 'Debt of the positions that become liquidatable' }),
  positions: Count(),
});

export const Auction = Type.Object(
  {
    clipper: Type.String({ description: 'The Clipper the Dog auctions the type through (Dog.ilks clip)' }),
    calc: Type.String({ description: 'Its price curve, the Abacus (Clipper.calc)' }),
    buf: Type.Number({ description: 'Start price over the oracle price at the kick (Clipper.buf / RAY)' }),
    tail: Count('Seconds after which an auction must be reset (Clipper.tail)'),
    cusp: Type.Number({
      description: 'Fall of the price, as a fraction of the start, that forces a reset (cusp / RAY)',
    }),
    curve_at_tail: Type.Number({
      description: 'The curve at the tail as a fraction of the start: calc.price(RAY, tail) / RAY',
    }),
    lowest_price: Type.Number({
      description:
        'The lowest price of one auction cycle, as a fraction of the market price at the kick: buf × max(cusp, curve_at_tail)',
    }),
    keeper_margin: Type.Number({
      description: 'max(0, 1 − lowest_price): how far the price may fall for a keeper who sells on DEXs',
    }),
    room: Type.Number({ description: 'DAI the Dog lets this type’s auctions raise now: Dog hole − dirt' }),
    stressed_tab: Amount('DAI the auctions must raise under the 35 % stress: debt liquidatable × chop'),
    depth: Amount('DAI the collateral’s pools pay for it down to lowest_price (shared by the types of one token)'),
    absorbable: Amount(
      'DAI absorbed: min(stressed_tab, room, the pools’ depth left by earlier types of the token), within Dog Hole − Dirt',
    ),
  },
  { description: 'MakerDAO: the type’s liquidation auction (Liquidations 2.0: Dog and Clipper)' },
);

export const Collateral = Type.Object({
  ilk: Type.Optional(Type.String({ description: 'MakerDAO: the collateral type’s name (ETH-A)' })),
  name: Type.String(),
  symbol: Type.String(),
  kind: Type.String({ description: 'crypto, psm, rwa or credit-line' }),
  collateral_token_address: Type.String(),
  amount: Amount('Collateral held, token units'),
  price_usd: UsdOrNull(
    'USD price of the collateral by the one price policy: the chain’s fresh USD feed, else the DEX price of the hour, else the protocol’s own oracle',
  ),
  price_source: Nullable(
    Type.String({ description: 'oracle: a USD feed; dex: the DEX price; market_oracle: the protocol’s own oracle' }),
  ),
  price_source_ref: Nullable(Type.String({ description: 'What was read: the feed, the oracle or the DEX pools' })),
  price_confidence: Nullable(Type.Number()),
  price_flagged: Type.Boolean({ description: 'The policy’s two sources (feed and DEX) differ by more than 2 %' }),
  price_disagreement: Nullable(Type.Number({ description: '|price_usd / alternative_price_usd − 1| (4 decimals)' })),
  alternative_price_usd: UsdOrNull('The other source’s price, when there is one'),
  oracle_price_usd: UsdOrNull(
    'The protocol’s own oracle’s answer (Maker: the Spot’s last poke of the OSM; Liquity: the PriceFeed’s last good price)',
  ),
  oracle_source_ref: Nullable(
    Type.String({ description: 'The protocol’s oracle read (Maker: the pip; Liquity: the PriceFeed)' }),
  ),
  oracle_disagreement: Nullable(Type.Number({ description: '|oracle_price_usd / price_usd − 1| (4 decimals)' })),
  oracle_flagged: Type.Boolean({ description: 'oracle_disagreement is above 2 %' }),
  collateral_usd: UsdOrNull('amount × price_usd'),
  debt: Type.Number({ description: 'Debt against this collateral, in stablecoin units (Maker: Art × rate, DAI)' }),
  collateralization: Fraction('collateral_usd / (debt × par)'),
  min_collateralization: Fraction('Liquidation ratio (Maker: Spot mat; Liquity: MCR 110 %)'),
  critical_collateralization: Fraction('Liquity: CCR 150 % (recovery mode below it)'),
  liquidation_penalty: Fraction('Maker: Dog chop − 1; Liquity: MCR − 1, the most a liquidated trove loses'),
  debt_ceiling: Amount('Maker: Vat line; null for Liquity'),
  stability_fee: Fraction('Maker: yearly fee from Jug duty + base'),
  borrowing_rate: Fraction('Liquity: one-off borrowing fee rate'),
  positions: Nullable(Count()),
  distribution: Type.Array(Band, { description: 'Positions by collateral ratio at the market price' }),
  liquidatable: Type.Array(Liquidatable, { description: 'Debt liquidatable after a 10/20/35/50 % price drop' }),
  auction: Type.Optional(Nullable(Auction)),
  gap_reasons: GapReasons,
});

export const CollateralsPayload = Type.Object({
  ...identity,
  as_of: Iso('Time of the snapshot block'),
  snapshot_block: Type.Integer(),
  total_supply: Type.Number(),
  total_debt: Type.Number(),
  total_debt_base: Type.Number(),
  backed_debt: Type.Number({ description: 'Σ of collateral_assets’ debt (Maker: Art × rate)' }),
  system_debt: Nullable(Type.Number({ description: 'Maker: Vat.vice, the debt no collateral backs' })),
  surplus_buffer: Nullable(Type.Number({ description: 'Maker: the Vow’s DAI less its sin' })),
  total_debt_usd: UsdOrNull('total_debt × the stablecoin’s USD price'),
  total_collateral_usd: UsdOrNull('All collateral at market prices'),
  collateral_ratio: Fraction('Over crypto collateral only'),
  kind_shares: Type.Array(KindShare),
  collateral_assets: Type.Array(Collateral),
  gap_reasons: GapReasons,
});

export const StableScoreRecord = Type.Composite([
  Type.Object({ chain: Type.String(), protocol: Type.String() }),
  DailyScoreRecord({ gapReasons: 'no_data (no snapshot that day), insufficient_evidence' }),
]);
export const StableScoreHistory = ScoreHistory(StableScoreRecord);

export type WeeklyRecordEntry = Static<typeof WeeklyRecord>;
export type CollateralEntry = Static<typeof Collateral>;
export type CollateralsPayloadEntry = Static<typeof CollateralsPayload>;
export type DepthRow = Static<typeof DepthEntry>;
export type KindShareEntry = Static<typeof KindShare>;
export type StableScoreRecordEntry = Static<typeof StableScoreRecord>;
