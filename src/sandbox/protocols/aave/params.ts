/**
 * What an Aave V3 market is made of, as the sandbox deploys it (reserve specs, E-mode categories, the deployed
 * market's addresses), and the parameters the world's markets use: Aave V3 Ethereum's.
 */
import type { Address } from 'viem';

export interface AaveReserveSpec {
  readonly token: Address;
  readonly symbol: string;
  readonly decimals: number;
  readonly ltvBps: number;
  readonly liquidationThresholdBps: number;
  /** Collateral paid per unit of debt repaid in a liquidation, e.g. 10500: a 5 % bonus. 0 when not collateral. */
  readonly liquidationBonusBps: number;
  /** Share of the liquidation bonus the protocol keeps (sent to the treasury as aTokens). */
  readonly liquidationProtocolFeeBps: number;
  readonly reserveFactorBps: number;
  /** Whole tokens, 0 = no cap. */
  readonly supplyCap: bigint;
  readonly borrowCap: bigint;
  readonly borrowingEnabled: boolean;
  readonly flashLoanEnabled: boolean;
  readonly optimalUsageRatio: bigint;
  readonly baseVariableBorrowRate: bigint;
  readonly variableRateSlope1: bigint;
  readonly variableRateSlope2: bigint;
  /** A Chainlink-style aggregator: `latestAnswer()` in USD with 8 decimals. */
  readonly priceSource: Address;
}

/** The risk and rate part of a reserve spec: what a market's configuration says about an asset. */
export type AaveReserveParams = Omit<AaveReserveSpec, 'token' | 'symbol' | 'decimals' | 'priceSource'>;

export interface AaveReserve {
  readonly symbol: string;
  readonly decimals: number;
  readonly token: Address;
  readonly aToken: Address;
  readonly variableDebtToken: Address;
  readonly stableDebtToken: Address;
  readonly interestRateStrategy: Address;
  readonly priceSource: Address;
}

/** A deployed market: plain JSON-serialisable data, ready for the world's manifest. */
export interface AaveMarket {
  /** Registry protocol id (`aave`, `spark`). */
  readonly protocol: string;
  readonly chain: 'ethereum';
  /** The registry's version of the market: `V3` for Aave, `V1` for SparkLend (its own numbering, same code). */
  readonly version: string;
  readonly baseAsset: string;
  /** The provider's market id: the registry's market name. */
  readonly marketId: string;
  readonly design: 'aave-v3';
  readonly deployer: Address;
  /** Receives the reserve factor's share of interest and the liquidation protocol fee, as aTokens. */
  readonly treasury: Address;
  readonly addressesProvider: Address;
  readonly aclManager: Address;
  /** The Pool proxy (the address users and events use), and the PoolConfigurator proxy. */
  readonly pool: Address;
  readonly poolConfigurator: Address;
  readonly oracle: Address;
  readonly dataProvider: Address;
  readonly reserves: readonly AaveReserve[];
  /**
   * The implementations behind the proxies (the reserves' tokens share one each) and the libraries the pool and the
   * configurator link: what a contract-source stand-in serves beside the proxies. Absent in worlds saved before.
   */
  readonly implementations?: AaveImplementations;
  /** The block holding the deployment (the first block ingestion needs to read). */
  readonly startBlock: number;
}

export interface AaveImplementations {
  readonly pool: Address;
  readonly poolConfigurator: Address;
  readonly aToken: Address;
  readonly stableDebtToken: Address;
  readonly variableDebtToken: Address;
  /** Library name (`SupplyLogic`) → its address. */
  readonly libraries: Readonly<Record<string, Address>>;
}

/** An efficiency mode (E-mode) category: higher LTV and threshold among correlated assets (Aave V3's eMode). */
export interface AaveEModeSpec {
  /** 1–255. */
  readonly id: number;
  readonly label: string;
  readonly ltvBps: number;
  readonly liquidationThresholdBps: number;
  readonly liquidationBonusBps: number;
  /** Symbols of the market's reserves in the category. */
  readonly assets: readonly string[];
}

export interface AaveMarketOptions {
  /** Registry protocol id of an `aave-v3` design market on Ethereum. */
  readonly protocol: string;
  readonly reserves: readonly AaveReserveSpec[];
  /** E-mode categories (none by default); each uses the reserves' own price sources. */
  readonly eModes?: readonly AaveEModeSpec[];
  /** Default: an address derived from the protocol id, with no code (Aave's Collector has no npm artifact). */
  readonly treasury?: Address;
}

/** What `queueAaveMarket` returns: the market's addresses, all known before the block is mined. */
export interface QueuedAaveMarket extends Omit<AaveMarket, 'startBlock'> {
  /** Transactions queued for this market. */
  readonly transactions: number;
}

export interface AaveDeployment {
  readonly market: AaveMarket;
  readonly transactions: number;
  readonly gasUsed: bigint;
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------------------------

/** A rate in basis points as a ray (1e27 = 100 %). */
export function rayFromBps(bps: number): bigint {
  return BigInt(bps) * 10n ** 23n;
}

/**
 * Aave V3 Ethereum's configuration of these four assets in February 2023, read from the chain by Aave's governance
 * tooling before the cbETH listing (bgd-labs/aave-proposals, `reports/pre-cbETH.md`): risk parameters, caps and
 * the variable-rate curves of each reserve's strategy. The sandbox's markets use them as they were; a fork such as
 * Spark may be given the same or its own.
 */
export const AAVE_V3_ETHEREUM_PARAMS = {
  USDC: {
    ltvBps: 7400,
    liquidationThresholdBps: 7600,
    liquidationBonusBps: 10450,
    liquidationProtocolFeeBps: 2000,
    reserveFactorBps: 1000,
    supplyCap: 1_760_000_000n,
    borrowCap: 1_580_000_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(9000),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(400),
    variableRateSlope2: rayFromBps(6000),
  },
  DAI: {
    ltvBps: 6400,
    liquidationThresholdBps: 7700,
    liquidationBonusBps: 10400,
    liquidationProtocolFeeBps: 2000,
    reserveFactorBps: 1000,
    supplyCap: 338_000_000n,
    borrowCap: 271_000_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(8000),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(400),
    variableRateSlope2: rayFromBps(7500),
  },
  WETH: {
    ltvBps: 8000,
    liquidationThresholdBps: 8250,
    liquidationBonusBps: 10500,
    liquidationProtocolFeeBps: 1000,
    reserveFactorBps: 1500,
    supplyCap: 1_800_000n,
    borrowCap: 1_400_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(8000),
    baseVariableBorrowRate: rayFromBps(100),
    variableRateSlope1: rayFromBps(380),
    variableRateSlope2: rayFromBps(8000),
  },
  WBTC: {
    ltvBps: 7000,
    liquidationThresholdBps: 7500,
    liquidationBonusBps: 10625,
    liquidationProtocolFeeBps: 1000,
    reserveFactorBps: 2000,
    supplyCap: 43_000n,
    borrowCap: 28_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(4500),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(700),
    variableRateSlope2: rayFromBps(30000),
  },
  /**
   * The three below are not in that report (listed later or with other parameters): USDT as USDC; wstETH and LINK
   * with the order of mainnet's 2023 values (wstETH LTV 69 %, threshold 79.5 %, bonus 7 %; LINK 50/65/7.5 %).
   */
  USDT: {
    ltvBps: 7400,
    liquidationThresholdBps: 7600,
    liquidationBonusBps: 10450,
    liquidationProtocolFeeBps: 1000,
    reserveFactorBps: 1000,
    supplyCap: 1_000_000_000n,
    borrowCap: 900_000_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(9000),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(400),
    variableRateSlope2: rayFromBps(6000),
  },
  wstETH: {
    ltvBps: 6900,
    liquidationThresholdBps: 7950,
    liquidationBonusBps: 10700,
    liquidationProtocolFeeBps: 1000,
    reserveFactorBps: 1500,
    supplyCap: 1_000_000n,
    borrowCap: 10_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(4500),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(450),
    variableRateSlope2: rayFromBps(8000),
  },
  LINK: {
    ltvBps: 5000,
    liquidationThresholdBps: 6500,
    liquidationBonusBps: 10750,
    liquidationProtocolFeeBps: 1000,
    reserveFactorBps: 2000,
    supplyCap: 15_000_000n,
    borrowCap: 8_000_000n,
    borrowingEnabled: true,
    flashLoanEnabled: true,
    optimalUsageRatio: rayFromBps(4500),
    baseVariableBorrowRate: 0n,
    variableRateSlope1: rayFromBps(700),
    variableRateSlope2: rayFromBps(30000),
  },
} as const satisfies Record<string, AaveReserveParams>;

/** Aave V3 Ethereum's ETH-correlated E-mode (category 1 at launch: LTV 90 %, threshold 93 %, bonus 1 %). */
export const AAVE_ETH_EMODE = {
  id: 1,
  label: 'ETH correlated',
  ltvBps: 9000,
  liquidationThresholdBps: 9300,
  liquidationBonusBps: 10100,
} as const;

/** Aave prices assets in USD with 8 decimals (`BASE_CURRENCY_UNIT` of its Ethereum oracle; base currency 0x0). */
export const AAVE_BASE_CURRENCY_UNIT = 10n ** 8n;

/** `interestRateMode` 2: variable. Stable-rate borrowing stays disabled on every reserve, as on Ethereum. */
export const VARIABLE_RATE_MODE = 2n;
