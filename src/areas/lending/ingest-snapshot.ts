/**
 * The state reads of the lending area's ingestion (ingest.ts schedules them): a market's state at one block, read
 * with multicall, the facts the analytics are computed from.
 *
 * Aave V3 design (Aave, Spark): everything comes from the Pool — the reserves list, each reserve's data
 * (configuration bitmap, rates, token addresses), the aToken and debt-token supplies, the market's own oracle
 * prices, and for every account the events named: its aToken and debt balances in the reserves it used, its
 * collateral flags (`getUserConfiguration`) and `getUserAccountData` (collateral, debt, health factor).
 *
 * Morpho Blue's reads are in ingest-snapshot-morpho.ts.
 */

import { type EvmSource, readCallsAt, type StateCall } from '../../sources/evm/index.js';
import { AAVE_ORACLE_ABI, AAVE_POOL_ABI, ADDRESSES_PROVIDER_ABI, ERC20_ABI, RATE_STRATEGY_ABI } from './events.js';
import type {
  AccountCarry,
  EModeCategorySnapshot,
  MarketSnapshot,
  PositionSnapshot,
  ReserveSnapshot,
} from './facts.js';
import { readsAccount, type SnapshotAccounts } from './participants.js';
import type { LendingMarketTarget } from './targets.js';

type Address = `0x${string}`;

type Call = StateCall;

const RAY = 10n ** 27n;
const WAD = 10n ** 18n;

const read = readCallsAt;

/** Bits `from`…`from + width - 1` of a bitmap. */
function bits(word: bigint, from: number, width: number): bigint {
  return (word >> BigInt(from)) & ((1n << BigInt(width)) - 1n);
}

/** Aave V3's ReserveConfiguration bitmap, decoded (ReserveConfiguration.sol bit layout). */
/** A ray (1e27) as a fraction, to 9 decimals. */
function rayToFraction(x: bigint): number {
  return Number((x * 10n ** 9n) / RAY) / 1e9;
}

export function decodeReserveConfiguration(data: bigint) {
  return {
    ltv: Number(bits(data, 0, 16)) / 10_000,
    liquidationThreshold: Number(bits(data, 16, 16)) / 10_000,
    /** Stored as 10000 + premium (10500 = 5 % bonus); 0 when the asset is not collateral. */
    liquidationBonus: bits(data, 32, 16) > 0n ? (Number(bits(data, 32, 16)) - 10_000) / 10_000 : 0,
    decimals: Number(bits(data, 48, 8)),
    active: bits(data, 56, 1) === 1n,
    frozen: bits(data, 57, 1) === 1n,
    borrowingEnabled: bits(data, 58, 1) === 1n,
    paused: bits(data, 60, 1) === 1n,
    borrowableInIsolation: bits(data, 61, 1) === 1n,
    siloedBorrowing: bits(data, 62, 1) === 1n,
    /** USD with 2 decimals (Aave's DEBT_CEILING_DECIMALS); 0: the asset is not an isolated collateral. */
    debtCeilingUsd: Number(bits(data, 212, 40)) / 100,
    reserveFactor: Number(bits(data, 64, 16)) / 10_000,
    eModeCategory: Number(bits(data, 168, 8)),
    borrowCap: Number(bits(data, 80, 36)),
    supplyCap: Number(bits(data, 116, 36)),
  };
}

const HALF_RAY = RAY / 2n;
/** Aave's WadRayMath.rayMul: a·b / 1e27, half up. */
export const rayMul = (a: bigint, b: bigint) => (a * b + HALF_RAY) / RAY;
/** Aave's WadRayMath.wadDiv: a·1e18 / b, half up. */
const wadDiv = (a: bigint, b: bigint) => (a * WAD + b / 2n) / b;
/** Aave's PercentageMath.percentMul: value · percentage / 1e4 (basis points), half up. */
const percentMul = (value: bigint, percentage: bigint) => (value * percentage + 5_000n) / 10_000n;
const MAX_UINT256 = (1n << 256n) - 1n;

/** A reserve as an account's data is derived from it: its id (bit position), configuration, price and indices. */
export interface AaveReserveState {
  readonly id: number;
  readonly configuration: bigint;
  /** The market oracle's price (base currency units); undefined when the oracle failed. */
  readonly price: bigint | undefined;
  /** `getReserveNormalizedIncome` / `getReserveNormalizedVariableDebt` at the block (rays). */
  readonly income: bigint | undefined;
  readonly debtIndex: bigint | undefined;
}

/** An E-mode category as the Pool applies it: its liquidation threshold (bps), its own price (0: none). */
export interface AaveEModeState {
  readonly liquidationThreshold: number;
  readonly price: bigint;
}

/**
 * `getUserAccountData`'s collateral, debt (base currency) and health factor, derived from an account's scaled
 * balances and the market's state at a block exactly as Aave V3.0's GenericLogic.calculateUserAccountData computes
 * them: per reserve the account uses (configuration bits), balance = scaled.rayMul(index), value = balance · price /
 * 10^decimals (floor); the liquidation threshold averaged by value (the E-mode category's for its assets); health
 * factor = collateral.percentMul(threshold).wadDiv(debt), max uint256 without debt. Stable debt is not derived: an
 * account holding some is read at every snapshot (its carry says `alwaysRead`).
 */
export function aaveAccountData(
  account: {
    readonly account: string;
    readonly configuration: bigint;
    readonly eMode: number;
    readonly scaledSupplied: Readonly<Record<string, string>>;
    readonly scaledBorrowed: Readonly<Record<string, string>>;
  },
  reserves: ReadonlyMap<string, AaveReserveState>,
  eModes: ReadonlyMap<number, AaveEModeState>,
): { collateralBase: bigint; debtBase: bigint; healthFactor: bigint } {
  if (account.configuration === 0n) return { collateralBase: 0n, debtBase: 0n, healthFactor: MAX_UINT256 };
  const category = account.eMode > 0 ? eModes.get(account.eMode) : undefined;
  if (account.eMode > 0 && !category) {
    throw new Error(`lending: E-mode category ${account.eMode} of ${account.account} was not read`);
  }
  let collateral = 0n;
  let debt = 0n;
  let weightedThreshold = 0n;
  for (const [asset, r] of reserves) {
    const usedAsCollateral = bits(account.configuration, 2 * r.id + 1, 1) === 1n;
    const borrowing = bits(account.configuration, 2 * r.id, 1) === 1n;
    if (!usedAsCollateral && !borrowing) continue;
    const threshold = bits(r.configuration, 16, 16);
    const unit = 10n ** bits(r.configuration, 48, 8);
    const inEMode = account.eMode > 0 && Number(bits(r.configuration, 168, 8)) === account.eMode;
    const price = inEMode && category!.price !== 0n ? category!.price : r.price;
    if (price === undefined) throw new Error(`lending: no oracle price of ${asset} for ${account.account}`);
    if (threshold !== 0n && usedAsCollateral) {
      if (r.income === undefined) throw new Error(`lending: no normalized income of ${asset}`);
      const value = (rayMul(BigInt(account.scaledSupplied[asset] ?? '0'), r.income) * price) / unit;
      collateral += value;
      weightedThreshold += value * (inEMode ? BigInt(category!.liquidationThreshold) : threshold);
    }
    if (borrowing) {
      if (r.debtIndex === undefined) throw new Error(`lending: no normalized variable debt of ${asset}`);
      const scaled = BigInt(account.scaledBorrowed[asset] ?? '0');
      debt += ((scaled === 0n ? 0n : rayMul(scaled, r.debtIndex)) * price) / unit;
    }
  }
  const threshold = collateral === 0n ? 0n : weightedThreshold / collateral;
  return {
    collateralBase: collateral,
    debtBase: debt,
    healthFactor: debt === 0n ? MAX_UINT256 : wadDiv(percentMul(collateral, threshold), debt),
  };
}

export async function readAaveSnapshot(
  source: EvmSource,
  market: LendingMarketTarget,
  accounts: SnapshotAccounts,
  block: { number: number; timestamp: number },
): Promise<MarketSnapshot> {
  const pool = market.pool;
  const [list, provider] = await read(
    source,
    [
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getReservesList' },
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'ADDRESSES_PROVIDER' },
    ],
    block.number,
  );
  if (!Array.isArray(list) || typeof provider !== 'string') {
    throw new Error(
      `lending: ${market.protocol} ${market.version} pool ${pool} answers no reserves at block ${block.number}`,
    );
  }
  const assets = (list as string[]).map((a) => a.toLowerCase() as Address);
  const [oracle] = await read(
    source,
    [{ address: provider as Address, abi: ADDRESSES_PROVIDER_ABI, functionName: 'getPriceOracle' }],
    block.number,
  );
  const first = await read(
    source,
    [
      ...assets.flatMap((asset): Call[] => [
        { address: pool, abi: AAVE_POOL_ABI, functionName: 'getReserveData', args: [asset] },
        { address: oracle as Address, abi: AAVE_ORACLE_ABI, functionName: 'getAssetPrice', args: [asset] },
        { address: asset, abi: ERC20_ABI, functionName: 'symbol' },
      ]),
      { address: oracle as Address, abi: AAVE_ORACLE_ABI, functionName: 'BASE_CURRENCY_UNIT' },
    ],
    block.number,
  );
  const baseUnit = (first[assets.length * 3] as bigint | undefined) ?? 10n ** 8n;
  interface ReserveData {
    configuration: { data: bigint };
    currentLiquidityRate: bigint;
    currentVariableBorrowRate: bigint;
    id: number;
    aTokenAddress: Address;
    stableDebtTokenAddress: Address;
    variableDebtTokenAddress: Address;
    interestRateStrategyAddress: Address;
    isolationModeTotalDebt: bigint;
  }
  const data = assets.map((_, i) => first[i * 3] as ReserveData | undefined);
  const missing = assets.filter((_, i) => !data[i]);
  if (missing.length)
    throw new Error(`lending: getReserveData failed for ${missing.join(', ')} at block ${block.number}`);
  const second = await read(
    source,
    assets.flatMap((_, i): Call[] => {
      const d = data[i]!;
      return [
        { address: d.aTokenAddress, abi: ERC20_ABI, functionName: 'totalSupply' },
        { address: d.variableDebtTokenAddress, abi: ERC20_ABI, functionName: 'totalSupply' },
        { address: d.stableDebtTokenAddress, abi: ERC20_ABI, functionName: 'totalSupply' },
        { address: d.interestRateStrategyAddress, abi: RATE_STRATEGY_ABI, functionName: 'OPTIMAL_USAGE_RATIO' },
        { address: d.interestRateStrategyAddress, abi: RATE_STRATEGY_ABI, functionName: 'getBaseVariableBorrowRate' },
        { address: d.interestRateStrategyAddress, abi: RATE_STRATEGY_ABI, functionName: 'getVariableRateSlope1' },
        { address: d.interestRateStrategyAddress, abi: RATE_STRATEGY_ABI, functionName: 'getVariableRateSlope2' },
      ];
    }),
    block.number,
  );
  /** Calls per asset in the second read: three balances and four rate-curve parameters. */
  const STRIDE = 7;
  const reserves: ReserveSnapshot[] = assets.map((asset, i) => {
    const d = data[i]!;
    const config = decodeReserveConfiguration(d.configuration.data);
    const price = first[i * 3 + 1] as bigint | undefined;
    const known = market.assets.find((a) => a.address === asset);
    const optimal = second[i * STRIDE + 3] as bigint | undefined;
    const curve = [4, 5, 6].map((k) => second[i * STRIDE + k] as bigint | undefined);
    return {
      asset,
      symbol: known?.symbol ?? (first[i * 3 + 2] as string | undefined) ?? asset,
      decimals: config.decimals,
      totalSupplyRaw: ((second[i * STRIDE] as bigint | undefined) ?? 0n).toString(),
      totalBorrowRaw: (
        ((second[i * STRIDE + 1] as bigint | undefined) ?? 0n) + ((second[i * STRIDE + 2] as bigint | undefined) ?? 0n)
      ).toString(),
      priceUsd: price === undefined ? null : Number(price) / Number(baseUnit),
      supplyRate: Number((d.currentLiquidityRate * 10n ** 9n) / RAY) / 1e9,
      borrowRate: Number((d.currentVariableBorrowRate * 10n ** 9n) / RAY) / 1e9,
      ltv: config.ltv,
      liquidationThreshold: config.liquidationThreshold,
      liquidationBonus: config.liquidationBonus,
      reserveFactor: config.reserveFactor,
      supplyCap: config.supplyCap,
      borrowCap: config.borrowCap,
      borrowingEnabled: config.borrowingEnabled,
      collateralEnabled: config.liquidationThreshold > 0,
      active: config.active,
      frozen: config.frozen,
      paused: config.paused,
      optimalUtilisation: optimal === undefined ? null : Number((optimal * 10n ** 9n) / RAY) / 1e9,
      rateModel:
        optimal === undefined || curve.some((x) => x === undefined)
          ? null
          : {
              kind: 'aave-v3-default',
              optimalUtilisation: rayToFraction(optimal),
              baseRate: rayToFraction(curve[0]!),
              slope1: rayToFraction(curve[1]!),
              slope2: rayToFraction(curve[2]!),
              curveSteepness: null,
            },
      isolation: {
        debtCeilingUsd: config.debtCeilingUsd,
        isolatedDebtUsd: Number(d.isolationModeTotalDebt ?? 0n) / 100,
        borrowableInIsolation: config.borrowableInIsolation,
        siloedBorrowing: config.siloedBorrowing,
      },
      aToken: d.aTokenAddress.toLowerCase(),
      debtToken: d.variableDebtTokenAddress.toLowerCase(),
    };
  });

  // Per reserve the indices that turn scaled balances into balances at the block, and the treasury (minted to
  // without an event the area reads, so always read).
  const third = await read(
    source,
    assets.flatMap((asset, i): Call[] => [
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getReserveNormalizedIncome', args: [asset] },
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getReserveNormalizedVariableDebt', args: [asset] },
      { address: data[i]!.aTokenAddress, abi: ERC20_ABI, functionName: 'RESERVE_TREASURY_ADDRESS' },
    ]),
    block.number,
  );
  const reserveStates = new Map<string, AaveReserveState>(
    assets.map((asset, i) => [
      asset,
      {
        id: data[i]!.id,
        configuration: data[i]!.configuration.data,
        price: first[i * 3 + 1] as bigint | undefined,
        income: third[i * 3] as bigint | undefined,
        debtIndex: third[i * 3 + 1] as bigint | undefined,
      },
    ]),
  );
  const treasuries = new Set(
    assets.flatMap((_, i) => {
      const t = third[i * 3 + 2];
      return typeof t === 'string' ? [t.toLowerCase()] : [];
    }),
  );

  // Positions: the accounts read at this block (all of them in a full read; else those events touched since the
  // base snapshot, and those always read): account data, configuration, E-mode, balances and scaled balances in the
  // reserves their events named. The others are carried from the base: balances = scaled × index, account data
  // derived as the Pool computes it (aaveAccountData), from this block's indices, prices and configuration.
  const index = new Map(assets.map((a, i) => [a, i]));
  const entries = [...accounts.participants.accounts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const calls: Call[] = [];
  interface Planned {
    account: string;
    supplied: string[];
    borrowed: string[];
    /** Index of its first call; undefined when carried. */
    at?: number;
  }
  const plan: Planned[] = [];
  for (const [account, used] of entries) {
    const supplied = [...used.supplied].filter((a) => index.has(a as Address)).sort();
    const borrowed = [...used.borrowed].filter((a) => index.has(a as Address)).sort();
    if (!readsAccount(accounts, account) && !treasuries.has(account)) {
      plan.push({ account, supplied, borrowed });
      continue;
    }
    plan.push({ account, supplied, borrowed, at: calls.length });
    calls.push(
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getUserAccountData', args: [account] },
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getUserConfiguration', args: [account] },
      { address: pool, abi: AAVE_POOL_ABI, functionName: 'getUserEMode', args: [account] },
    );
    for (const a of supplied) {
      const aToken = data[index.get(a as Address)!]!.aTokenAddress;
      calls.push(
        { address: aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [account] },
        { address: aToken, abi: ERC20_ABI, functionName: 'scaledBalanceOf', args: [account] },
      );
    }
    for (const a of borrowed) {
      const d = data[index.get(a as Address)!]!;
      calls.push(
        { address: d.variableDebtTokenAddress, abi: ERC20_ABI, functionName: 'balanceOf', args: [account] },
        { address: d.stableDebtTokenAddress, abi: ERC20_ABI, functionName: 'balanceOf', args: [account] },
        { address: d.variableDebtTokenAddress, abi: ERC20_ABI, functionName: 'scaledBalanceOf', args: [account] },
      );
    }
  }
  const results = await read(source, calls, block.number);
  interface AccountState {
    account: string;
    supplied: string[];
    borrowed: string[];
    balancesSupplied: Map<string, bigint>;
    balancesBorrowed: Map<string, bigint>;
    configuration: bigint;
    eMode: number;
    /** Read: getUserAccountData's collateral, debt and health factor; carried: derived below. */
    accountData?: { collateralBase: bigint; debtBase: bigint; healthFactor: bigint };
    carry: AccountCarry;
  }
  const states: AccountState[] = plan.map((p) => {
    if (p.at === undefined) {
      const carry = accounts.base![p.account]!;
      const balance = (scaled: string | undefined, by: bigint | undefined, what: string) => {
        if (scaled === undefined) return 0n;
        if (by === undefined) {
          throw new Error(`lending: no ${what} index of a reserve of ${p.account} at block ${block.number}`);
        }
        return rayMul(BigInt(scaled), by);
      };
      return {
        account: p.account,
        supplied: p.supplied,
        borrowed: p.borrowed,
        balancesSupplied: new Map(
          p.supplied.map((a) => [a, balance(carry.scaledSupplied?.[a], reserveStates.get(a)?.income, 'income')]),
        ),
        balancesBorrowed: new Map(
          p.borrowed.map((a) => [a, balance(carry.scaledBorrowed?.[a], reserveStates.get(a)?.debtIndex, 'debt')]),
        ),
        configuration: BigInt(carry.configuration ?? '0'),
        eMode: carry.eMode ?? 0,
        carry,
      };
    }
    const accountData = results[p.at] as readonly bigint[] | undefined;
    if (!accountData) throw new Error(`lending: getUserAccountData(${p.account}) failed at block ${block.number}`);
    const configuration = (results[p.at + 1] as { data: bigint } | undefined)?.data ?? 0n;
    const eMode = Number((results[p.at + 2] as bigint | undefined) ?? 0n);
    let at = p.at + 3;
    const balancesSupplied = new Map<string, bigint>();
    const scaledSupplied: Record<string, string> = {};
    for (const a of p.supplied) {
      balancesSupplied.set(a, (results[at++] as bigint | undefined) ?? 0n);
      const scaled = (results[at++] as bigint | undefined) ?? 0n;
      if (scaled > 0n) scaledSupplied[a] = scaled.toString();
    }
    const balancesBorrowed = new Map<string, bigint>();
    const scaledBorrowed: Record<string, string> = {};
    let stable = false;
    for (const a of p.borrowed) {
      const variable = (results[at++] as bigint | undefined) ?? 0n;
      const stableDebt = (results[at++] as bigint | undefined) ?? 0n;
      const scaled = (results[at++] as bigint | undefined) ?? 0n;
      balancesBorrowed.set(a, variable + stableDebt);
      if (scaled > 0n) scaledBorrowed[a] = scaled.toString();
      if (stableDebt > 0n) stable = true;
    }
    // A flag on a reserve its events never named has no scaled balance to derive from: such an account is read.
    const unnamed = [...reserveStates].some(
      ([a, r]) =>
        (bits(configuration, 2 * r.id + 1, 1) === 1n && !p.supplied.includes(a)) ||
        (bits(configuration, 2 * r.id, 1) === 1n && !p.borrowed.includes(a)),
    );
    const alwaysRead = treasuries.has(p.account) || stable || unnamed;
    return {
      account: p.account,
      supplied: p.supplied,
      borrowed: p.borrowed,
      balancesSupplied,
      balancesBorrowed,
      configuration,
      eMode,
      accountData: { collateralBase: accountData[0]!, debtBase: accountData[1]!, healthFactor: accountData[5]! },
      carry: {
        supplied: p.supplied,
        borrowed: p.borrowed,
        scaledSupplied,
        scaledBorrowed,
        configuration: configuration.toString(),
        eMode,
        ...(alwaysRead ? { alwaysRead } : {}),
      },
    };
  });
  // E-mode categories in use: their threshold and bonus replace the reserves' for the assets of the category.
  const categories = [...new Set(states.map((x) => x.eMode).filter((c) => c > 0))].sort((a, b) => a - b);
  const categoryData = (await read(
    source,
    categories.map(
      (id): Call => ({ address: pool, abi: AAVE_POOL_ABI, functionName: 'getEModeCategoryData', args: [id] }),
    ),
    block.number,
  )) as (
    | { ltv: number; liquidationThreshold: number; liquidationBonus: number; priceSource: string; label: string }
    | undefined
  )[];
  // A category with its own price source prices its assets for the accounts in it (EModeLogic).
  const priced = categories.filter((_, i) => {
    const source = categoryData[i]?.priceSource;
    return source !== undefined && BigInt(source) !== 0n;
  });
  const categoryPrices = await read(
    source,
    priced.map(
      (id): Call => ({
        address: oracle as Address,
        abi: AAVE_ORACLE_ABI,
        functionName: 'getAssetPrice',
        args: [categoryData[categories.indexOf(id)]!.priceSource],
      }),
    ),
    block.number,
  );
  const configsOf = assets.map((_, i) => decodeReserveConfiguration(data[i]!.configuration.data));
  const eModeCategories: EModeCategorySnapshot[] = categories.flatMap((id, i) => {
    const c = categoryData[i];
    if (!c) return [];
    return [
      {
        id,
        label: c.label,
        ltv: c.ltv / 10_000,
        liquidationThreshold: c.liquidationThreshold / 10_000,
        liquidationBonus: c.liquidationBonus > 0 ? (c.liquidationBonus - 10_000) / 10_000 : 0,
        assets: assets.filter((_, j) => configsOf[j]!.eModeCategory === id),
      },
    ];
  });
  const eModes = new Map(
    categories.map((id, i) => {
      const c = categoryData[i];
      return [
        id,
        c
          ? {
              threshold: c.liquidationThreshold / 10_000,
              bonus: c.liquidationBonus > 0 ? (c.liquidationBonus - 10_000) / 10_000 : 0,
            }
          : undefined,
      ];
    }),
  );
  const eModeParams = new Map<number, AaveEModeState>(
    categories.flatMap((id, i) => {
      const c = categoryData[i];
      if (!c) return [];
      const p = priced.indexOf(id);
      return [
        [id, { liquidationThreshold: c.liquidationThreshold, price: p < 0 ? 0n : (categoryPrices[p] as bigint) }],
      ];
    }),
  );
  const configs = configsOf;
  const positions: PositionSnapshot[] = [];
  const carry: Record<string, AccountCarry> = {};
  for (const x of states) {
    carry[x.account] = x.carry;
    const accountData =
      x.accountData ??
      aaveAccountData(
        {
          account: x.account,
          configuration: x.configuration,
          eMode: x.eMode,
          scaledSupplied: x.carry.scaledSupplied ?? {},
          scaledBorrowed: x.carry.scaledBorrowed ?? {},
        },
        reserveStates,
        eModeParams,
      );
    const supplied: Record<string, string> = {};
    for (const a of x.supplied) {
      const balance = x.balancesSupplied.get(a) ?? 0n;
      if (balance > 0n) supplied[a] = balance.toString();
    }
    const borrowed: Record<string, string> = {};
    for (const a of x.borrowed) {
      const balance = x.balancesBorrowed.get(a) ?? 0n;
      if (balance > 0n) borrowed[a] = balance.toString();
    }
    const collateral = assets.filter((a, i) => bits(x.configuration, 2 * data[i]!.id + 1, 1) === 1n && supplied[a]);
    if (!Object.keys(supplied).length && !Object.keys(borrowed).length) continue;
    const thresholds: Record<string, number> = {};
    const bonuses: Record<string, number> = {};
    for (const a of collateral) {
      const config = configs[index.get(a)!]!;
      const category = x.eMode > 0 && config.eModeCategory === x.eMode ? eModes.get(x.eMode) : undefined;
      thresholds[a] = category?.threshold ?? config.liquidationThreshold;
      bonuses[a] = category?.bonus ?? config.liquidationBonus;
    }
    const { collateralBase, debtBase, healthFactor: hf } = accountData;
    positions.push({
      account: x.account,
      marketId: '',
      supplied,
      borrowed,
      collateral,
      thresholds,
      bonuses,
      eMode: x.eMode,
      collateralUsd: Number(collateralBase) / Number(baseUnit),
      debtUsd: Number(debtBase) / Number(baseUnit),
      healthFactor: debtBase === 0n ? null : Number((hf * 10n ** 9n) / WAD) / 1e9,
    });
  }
  return {
    chain: market.chain,
    pool,
    blockNumber: block.number,
    timestamp: block.timestamp,
    reserves,
    positions,
    oracle: typeof oracle === 'string' ? oracle.toLowerCase() : undefined,
    eModeCategories,
    carry,
  };
}
