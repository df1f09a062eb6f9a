/**
 * The lending markets' events and views, as ABIs, with decoders to `LendingEventFact` fields.
 *
 * Aave V3 (`@aave/core-v3` IPool / IAToken) and Morpho Blue (`EventsLib`, `IMorpho`), as deployed on mainnet and
 * in the sandbox. Signatures are the contracts' own; topics are derived from them by viem.
 */
import { type Abi, decodeEventLog, parseAbi, toEventSelector } from 'viem';
import type { EvmLog, Hex } from '../../sources/evm/index.js';
import type { LendingEventKind } from './facts.js';

export const AAVE_POOL_EVENTS = parseAbi([
  'event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)',
  'event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount)',
  'event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)',
  'event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens)',
  'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
  // Changes of an account's state that move no asset: they only mark the account as changed for the next snapshot.
  'event ReserveUsedAsCollateralEnabled(address indexed reserve, address indexed user)',
  'event ReserveUsedAsCollateralDisabled(address indexed reserve, address indexed user)',
  'event UserEModeSet(address indexed user, uint8 categoryId)',
  'event SwapBorrowRateMode(address indexed reserve, address indexed user, uint8 interestRateMode)',
  'event RebalanceStableBorrowRate(address indexed reserve, address indexed user)',
]);

/** An aToken's transfer between two accounts (mints and burns emit Mint/Burn instead). `value` is scaled. */
export const ATOKEN_EVENTS = parseAbi([
  'event BalanceTransfer(address indexed from, address indexed to, uint256 value, uint256 index)',
]);

export const MORPHO_EVENTS = parseAbi([
  'event CreateMarket(bytes32 indexed id, (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv) marketParams)',
  'event Supply(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets, uint256 shares)',
  'event Withdraw(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets, uint256 shares)',
  'event Borrow(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets, uint256 shares)',
  'event Repay(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets, uint256 shares)',
  'event SupplyCollateral(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets)',
  'event WithdrawCollateral(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets)',
  'event Liquidate(bytes32 indexed id, address indexed caller, address indexed borrower, uint256 repaidAssets, uint256 repaidShares, uint256 seizedAssets, uint256 badDebtAssets, uint256 badDebtShares)',
]);

const topicsOf = (abi: Abi) =>
  abi.filter((x) => x.type === 'event').map((x) => toEventSelector(x as Parameters<typeof toEventSelector>[0]));

export const AAVE_POOL_TOPICS: readonly Hex[] = topicsOf(AAVE_POOL_EVENTS);
export const ATOKEN_TOPICS: readonly Hex[] = topicsOf(ATOKEN_EVENTS);
export const MORPHO_TOPICS: readonly Hex[] = topicsOf(MORPHO_EVENTS);

/** What one log says, before the sink places it in a market (Morpho's asset comes from its market's params). */
export interface DecodedLendingEvent {
  readonly kind: LendingEventKind;
  /** Morpho market id; '' for Aave. */
  readonly marketId: string;
  /** Aave: the reserve (liquidations: the debt asset); Morpho: '' (resolved from the market). */
  readonly asset: string;
  readonly account: string;
  readonly actor: string;
  readonly amount: bigint;
  /** Aave liquidations: the collateral reserve. */
  readonly collateralAsset: string;
  readonly collateralAmount: bigint;
  /** Morpho CreateMarket: the market's params. */
  readonly params?: {
    readonly loanToken: string;
    readonly collateralToken: string;
    readonly oracle: string;
    readonly irm: string;
    readonly lltv: bigint;
  };
}

const lc = (a: unknown) => String(a).toLowerCase();

function decode(abi: Abi, log: EvmLog): { eventName: string; args: Record<string, unknown> } | undefined {
  try {
    const ev = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true });
    return { eventName: String(ev.eventName), args: ev.args as unknown as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** Decodes an Aave Pool log; undefined for other events or malformed data. */
export function decodeAavePoolLog(log: EvmLog): DecodedLendingEvent | undefined {
  const ev = decode(AAVE_POOL_EVENTS, log);
  if (!ev) return undefined;
  const a = ev.args;
  const base = { marketId: '', collateralAsset: '', collateralAmount: 0n };
  switch (ev.eventName) {
    case 'Supply':
      return {
        ...base,
        kind: 'supply',
        asset: lc(a.reserve),
        account: lc(a.onBehalfOf),
        actor: lc(a.user),
        amount: a.amount as bigint,
      };
    case 'Withdraw':
      return {
        ...base,
        kind: 'withdraw',
        asset: lc(a.reserve),
        account: lc(a.user),
        actor: lc(a.user),
        amount: a.amount as bigint,
      };
    case 'Borrow':
      return {
        ...base,
        kind: 'borrow',
        asset: lc(a.reserve),
        account: lc(a.onBehalfOf),
        actor: lc(a.user),
        amount: a.amount as bigint,
      };
    case 'Repay':
      return {
        ...base,
        kind: 'repay',
        asset: lc(a.reserve),
        account: lc(a.user),
        actor: lc(a.repayer),
        amount: a.amount as bigint,
      };
    case 'LiquidationCall':
      return {
        kind: 'liquidation',
        marketId: '',
        asset: lc(a.debtAsset),
        account: lc(a.user),
        actor: lc(a.liquidator),
        amount: a.debtToCover as bigint,
        collateralAsset: lc(a.collateralAsset),
        collateralAmount: a.liquidatedCollateralAmount as bigint,
      };
    case 'ReserveUsedAsCollateralEnabled':
    case 'ReserveUsedAsCollateralDisabled':
    case 'UserEModeSet':
    case 'SwapBorrowRateMode':
    case 'RebalanceStableBorrowRate':
      return {
        ...base,
        kind: 'account_change',
        asset: a.reserve === undefined ? '' : lc(a.reserve),
        account: lc(a.user),
        actor: lc(a.user),
        amount: 0n,
      };
    default:
      return undefined;
  }
}

/** Decodes an aToken's BalanceTransfer (the asset is the aToken's reserve, set by the sink). */
export function decodeATokenLog(log: EvmLog): DecodedLendingEvent | undefined {
  const ev = decode(ATOKEN_EVENTS, log);
  if (ev?.eventName !== 'BalanceTransfer') return undefined;
  const a = ev.args;
  return {
    kind: 'transfer',
    marketId: '',
    asset: '',
    account: lc(a.to),
    actor: lc(a.from),
    amount: a.value as bigint,
    collateralAsset: '',
    collateralAmount: 0n,
  };
}

/** Decodes a Morpho Blue log; the asset is left '' (the sink resolves it from the market's params). */
export function decodeMorphoLog(log: EvmLog): DecodedLendingEvent | undefined {
  const ev = decode(MORPHO_EVENTS, log);
  if (!ev) return undefined;
  const a = ev.args;
  const id = lc(a.id);
  const base = { marketId: id, asset: '', collateralAsset: '', collateralAmount: 0n };
  switch (ev.eventName) {
    case 'CreateMarket': {
      const p = a.marketParams as {
        loanToken: string;
        collateralToken: string;
        oracle: string;
        irm: string;
        lltv: bigint;
      };
      return {
        ...base,
        kind: 'create_market',
        account: '',
        actor: '',
        amount: 0n,
        params: {
          loanToken: lc(p.loanToken),
          collateralToken: lc(p.collateralToken),
          oracle: lc(p.oracle),
          irm: lc(p.irm),
          lltv: p.lltv,
        },
      };
    }
    case 'Supply':
      return { ...base, kind: 'supply', account: lc(a.onBehalf), actor: lc(a.caller), amount: a.assets as bigint };
    case 'Withdraw':
      return { ...base, kind: 'withdraw', account: lc(a.onBehalf), actor: lc(a.caller), amount: a.assets as bigint };
    case 'Borrow':
      return { ...base, kind: 'borrow', account: lc(a.onBehalf), actor: lc(a.caller), amount: a.assets as bigint };
    case 'Repay':
      return { ...base, kind: 'repay', account: lc(a.onBehalf), actor: lc(a.caller), amount: a.assets as bigint };
    case 'SupplyCollateral':
      return {
        ...base,
        kind: 'supply_collateral',
        account: lc(a.onBehalf),
        actor: lc(a.caller),
        amount: a.assets as bigint,
      };
    case 'WithdrawCollateral':
      return {
        ...base,
        kind: 'withdraw_collateral',
        account: lc(a.onBehalf),
        actor: lc(a.caller),
        amount: a.assets as bigint,
      };
    case 'Liquidate':
      return {
        ...base,
        kind: 'liquidation',
        account: lc(a.borrower),
        actor: lc(a.caller),
        amount: a.repaidAssets as bigint,
        collateralAmount: a.seizedAssets as bigint,
      };
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Views read for snapshots
// ---------------------------------------------------------------------------------------------------------------

export const AAVE_POOL_ABI = parseAbi([
  'function getReservesList() view returns (address[])',
  'function ADDRESSES_PROVIDER() view returns (address)',
  'function getReserveData(address asset) view returns (((uint256 data) configuration, uint128 liquidityIndex, uint128 currentLiquidityRate, uint128 variableBorrowIndex, uint128 currentVariableBorrowRate, uint128 currentStableBorrowRate, uint40 lastUpdateTimestamp, uint16 id, address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress, address interestRateStrategyAddress, uint128 accruedToTreasury, uint128 unbacked, uint128 isolationModeTotalDebt))',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function getUserConfiguration(address user) view returns ((uint256 data))',
  'function getUserEMode(address user) view returns (uint256)',
  'function getReserveNormalizedIncome(address asset) view returns (uint256)',
  'function getReserveNormalizedVariableDebt(address asset) view returns (uint256)',
  'function getEModeCategoryData(uint8 id) view returns ((uint16 ltv, uint16 liquidationThreshold, uint16 liquidationBonus, address priceSource, string label))',
]);

export const ADDRESSES_PROVIDER_ABI = parseAbi(['function getPriceOracle() view returns (address)']);

export const AAVE_ORACLE_ABI = parseAbi([
  'function getAssetPrice(address asset) view returns (uint256)',
  'function BASE_CURRENCY_UNIT() view returns (uint256)',
]);

export const RATE_STRATEGY_ABI = parseAbi([
  'function OPTIMAL_USAGE_RATIO() view returns (uint256)',
  'function getBaseVariableBorrowRate() view returns (uint256)',
  'function getVariableRateSlope1() view returns (uint256)',
  'function getVariableRateSlope2() view returns (uint256)',
]);

export const ERC20_ABI = parseAbi([
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function scaledBalanceOf(address) view returns (uint256)',
  'function RESERVE_TREASURY_ADDRESS() view returns (address)',
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
]);

export const MORPHO_ABI = parseAbi([
  'function market(bytes32 id) view returns (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee)',
  'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
  'function feeRecipient() view returns (address)',
  'function idToMarketParams(bytes32 id) view returns (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv)',
]);

export const MORPHO_ORACLE_ABI = parseAbi(['function price() view returns (uint256)']);

export const MORPHO_IRM_ABI = parseAbi([
  'function borrowRateView((address loanToken, address collateralToken, address oracle, address irm, uint256 lltv) marketParams, (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee) market) view returns (uint256)',
]);
