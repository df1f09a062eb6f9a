/**
 * Facts of the lending area.
 *
 * Two kinds: the markets' events (`lending_events`: one row per Supply, Withdraw, Borrow, Repay, liquidation,
 * collateral move or aToken transfer log, decoded), and state snapshots (`lending_snapshots`: everything the
 * analytics need, read from the chain with multicall at one block: reserves and their configuration, totals,
 * rates, oracle prices, and every known position's balances and health). Events say who ever took part and what
 * happened (liquidations, activity); snapshots say what is true at a block. Big integers are decimal strings in
 * snapshots (JSON) and bigint in the typed facts.
 */

export type LendingEventKind =
  | 'supply'
  | 'withdraw'
  | 'borrow'
  | 'repay'
  | 'liquidation'
  | 'supply_collateral'
  | 'withdraw_collateral'
  | 'transfer'
  /** Aave: a collateral flag, E-mode or rate mode set; moves nothing, marks the account as changed. */
  | 'account_change'
  | 'create_market';

export interface LendingEventFact {
  readonly chain: string;
  /** Lowercase address of the market's main contract (Aave Pool, Morpho singleton). */
  readonly pool: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  /** Unix seconds of the block. */
  readonly timestamp: number;
  readonly kind: LendingEventKind;
  /** Morpho market id (lowercase hex); '' for Aave. */
  readonly marketId: string;
  /**
   * The asset the event moves: the reserve (Aave), the loan token (Morpho supply/withdraw/borrow/repay), the
   * collateral token (Morpho collateral moves). Liquidations: the debt asset.
   */
  readonly asset: string;
  /** The position the event changes (onBehalfOf; the liquidated borrower; a transfer's recipient). */
  readonly account: string;
  /** Who sent it (caller, repayer, liquidator; a transfer's sender). */
  readonly actor: string;
  /** Raw amount of `asset` (liquidations: debt repaid). */
  readonly amount: bigint;
  /** Liquidations: the collateral asset and the raw collateral seized; otherwise '' and 0. */
  readonly collateralAsset: string;
  readonly collateralAmount: bigint;
}

/** One reserve of an Aave-design market at a block (Morpho: one loan token or collateral of the view). */
export interface ReserveSnapshot {
  /** Lowercase underlying token. */
  readonly asset: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Raw totals (aToken and debt-token supplies; Morpho: assets with interest accrued to the block). */
  readonly totalSupplyRaw: string;
  readonly totalBorrowRaw: string;
  /** USD price of one whole token from the market's oracle (Aave: AaveOracle; Morpho: see methodology). */
  readonly priceUsd: number | null;
  /** Yearly rates as fractions (0.05 = 5 %). Aave's are APRs as it reports them (ray / 1e27). */
  readonly supplyRate: number | null;
  readonly borrowRate: number | null;
  /** Configuration as fractions (0.8 = 80 %); bonus as the premium (0.05 for 105 %); caps in whole tokens, 0 = none. */
  readonly ltv: number | null;
  readonly liquidationThreshold: number | null;
  readonly liquidationBonus: number | null;
  readonly reserveFactor: number | null;
  readonly supplyCap: number | null;
  readonly borrowCap: number | null;
  readonly borrowingEnabled: boolean;
  readonly collateralEnabled: boolean;
  readonly active: boolean;
  readonly frozen: boolean;
  readonly paused: boolean;
  /** The rate curve's kink (optimal usage ratio) when known. */
  readonly optimalUtilisation: number | null;
  /**
   * The variable borrow rate curve (yearly fractions) when read: Aave V3's DefaultReserveInterestRateStrategy
   * (base + slope1 × u/optimal below the kink, + slope2 above it). Absent in snapshots taken before issue 13.
   */
  readonly rateModel?: RateModel | null;
  /**
   * Aave V3 isolation mode (absent in older snapshots): the debt ceiling in USD (0: not an isolated collateral), the
   * debt borrowed against it, and whether the asset may be borrowed by isolated positions.
   */
  readonly isolation?: {
    readonly debtCeilingUsd: number;
    readonly isolatedDebtUsd: number;
    readonly borrowableInIsolation: boolean;
    readonly siloedBorrowing: boolean;
  } | null;
  /** Aave: the aToken and variable debt token. Morpho: null. */
  readonly aToken: string | null;
  readonly debtToken: string | null;
}

/** A lending market's interest rate model, as its contracts define it. */
export interface RateModel {
  /** `aave-v3-default` (piecewise linear with a kink) or `morpho-adaptive-curve` (AdaptiveCurveIrm). */
  readonly kind: 'aave-v3-default' | 'morpho-adaptive-curve';
  readonly optimalUtilisation: number;
  /** Aave: base variable rate, slopes below and above the kink (yearly fractions); Morpho: null. */
  readonly baseRate: number | null;
  readonly slope1: number | null;
  readonly slope2: number | null;
  /** Morpho: the curve's steepness (the rate at 100 % utilisation is this × the rate at target); Aave: null. */
  readonly curveSteepness: number | null;
}

/** One account's position in a market at a block: balances per asset, and the protocol's own health figures. */
export interface PositionSnapshot {
  readonly account: string;
  /** Morpho: the isolated market of this position (an account has one position per market); '' for Aave. */
  readonly marketId: string;
  /** Raw balances by lowercase asset: supplied (aToken balance; Morpho: supplied loan token or collateral). */
  readonly supplied: Readonly<Record<string, string>>;
  /** Raw debt by lowercase asset. */
  readonly borrowed: Readonly<Record<string, string>>;
  /** Assets whose supply counts as collateral for this account (Aave: user configuration; Morpho: the collateral). */
  readonly collateral: readonly string[];
  /**
   * The liquidation threshold and bonus (premium, 0.05 = 5 %) that apply to each collateral asset for THIS account:
   * the reserve's, or its E-mode category's when the account is in that E-mode (Aave); the market's LLTV and
   * liquidation incentive (Morpho). Recomputing a health factor under a price shock uses these.
   */
  readonly thresholds: Readonly<Record<string, number>>;
  readonly bonuses: Readonly<Record<string, number>>;
  /** Aave E-mode category of the account (0: none). */
  readonly eMode: number;
  /** Aave getUserAccountData (USD); Morpho: computed from the market state and its oracle. */
  readonly collateralUsd: number;
  readonly debtUsd: number;
  /** Health factor; null without debt. */
  readonly healthFactor: number | null;
}

/** An Aave E-mode category: its parameters apply to the positions in it, for the reserves of the category. */
export interface EModeCategorySnapshot {
  readonly id: number;
  readonly label: string;
  readonly ltv: number;
  readonly liquidationThreshold: number;
  /** Premium (0.01 = 1 %). */
  readonly liquidationBonus: number;
  /** Lowercase reserves whose configuration names this category. */
  readonly assets: readonly string[];
}

/** Morpho Blue isolated market state at a block (per market id), for the Morpho view. */
export interface MorphoMarketSnapshot {
  readonly id: string;
  readonly loanToken: string;
  readonly collateralToken: string;
  readonly lltv: number;
  /** The market's oracle and interest rate model (absent in snapshots taken before lending.liquidity-health@1.2.0). */
  readonly oracle?: string;
  readonly irm?: string;
  /** The protocol fee (share of interest) as a fraction. */
  readonly fee?: number;
  /** Collateral priced in loan token (whole units), from the market's oracle. */
  readonly oraclePrice: number | null;
  readonly totalSupplyRaw: string;
  readonly totalBorrowRaw: string;
  readonly totalCollateralRaw: string;
  readonly borrowRate: number | null;
  readonly supplyRate: number | null;
}

export interface MarketSnapshot {
  readonly chain: string;
  readonly pool: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  readonly reserves: readonly ReserveSnapshot[];
  readonly positions: readonly PositionSnapshot[];
  /** Aave design: the market's price oracle (AaveOracle) the reserves' `priceUsd` were read from. */
  readonly oracle?: string;
  /** Aave design: the E-mode categories in use by a position (their parameters replace the reserves' for it). */
  readonly eModeCategories?: readonly EModeCategorySnapshot[];
  /** Morpho only. */
  readonly morphoMarkets?: readonly MorphoMarketSnapshot[];
  /**
   * Every participant's state at the block, which the next snapshot of the same UTC day carries forward for the
   * accounts no event touched since (ingest-snapshot.ts); absent in snapshots taken before issue 30.
   */
  readonly carry?: Readonly<Record<string, AccountCarry>>;
}

/**
 * One participant's state at a snapshot's block, as far as events change it: the assets its events named, and its
 * raw balances that move only by its own events. Aave: scaled aToken and variable-debt balances (the balance is the
 * scaled one × the reserve's index, read per snapshot), the collateral bitmap and E-mode; Morpho: its shares and
 * collateral (assets follow from the market's totals, read per snapshot). Big integers as decimal strings.
 */
export interface AccountCarry {
  readonly supplied: readonly string[];
  readonly borrowed: readonly string[];
  /** Aave: scaled balances by asset (the named assets). */
  readonly scaledSupplied?: Readonly<Record<string, string>>;
  readonly scaledBorrowed?: Readonly<Record<string, string>>;
  /** Aave: `getUserConfiguration` (decimal) and `getUserEMode`. */
  readonly configuration?: string;
  readonly eMode?: number;
  /** Morpho: `position(id, account)`: supply shares, borrow shares, collateral. */
  readonly position?: readonly [string, string, string];
  /**
   * Read again at every snapshot: its state moves without an event the area reads (Aave: the treasury, minted to
   * by `mintToTreasury`; stable debt, which accrues per account; a flag on a reserve its events never named; an
   * E-mode with its own price source. Morpho: the fee recipient, paid in shares at each accrual).
   */
  readonly alwaysRead?: boolean;
}

/** One isolated Morpho Blue market (`MarketParams` and its id), as its `CreateMarket` log announced it. */
export interface MorphoMarketParams {
  readonly id: `0x${string}`;
  readonly loanToken: string;
  readonly collateralToken: string;
  readonly oracle: string;
  readonly irm: string;
  /** WAD (1e18 = 100 %), decimal string. */
  readonly lltv: string;
}

/** Who took part in a market, from its events: per account the assets it supplied and borrowed (Morpho: per market). */
export interface Participants {
  /** key: account (Aave) or `${marketId}:${account}` (Morpho). */
  readonly accounts: ReadonlyMap<string, { supplied: ReadonlySet<string>; borrowed: ReadonlySet<string> }>;
}
