/**
 * Morpho Blue's state reads of the lending area's ingestion (ingest.ts schedules them; the Aave V3 reads are in
 * ingest-snapshot.ts): per isolated market its totals (`market(id)`, with interest accrued to the block as Morpho's
 * own `expectedMarketBalances` does), its oracle price and IRM rate, and every known account's position. USD values
 * use the pipeline's USD price of the loan token (a Morpho oracle prices collateral in loan token only). Also the
 * Morpho constants and share/interest math the view and its tests use (MORPHO_TARGET_UTILISATION, morphoViewRates…).
 */

import { type EvmSource, readCallsAt, type StateCall } from '../../sources/evm/index.js';
import { MORPHO_ABI, MORPHO_IRM_ABI, MORPHO_ORACLE_ABI } from './events.js';
import type {
  AccountCarry,
  MarketSnapshot,
  MorphoMarketParams,
  MorphoMarketSnapshot,
  PositionSnapshot,
  ReserveSnapshot,
} from './facts.js';
import { readsAccount, type SnapshotAccounts } from './participants.js';
import type { LendingMarketTarget } from './targets.js';
import { toUnits } from './units.js';

type Address = `0x${string}`;

type Call = StateCall;

const WAD = 10n ** 18n;
const SECONDS_PER_YEAR = 365 * 86_400;

const read = readCallsAt;

const VIRTUAL_SHARES = 10n ** 6n;
const VIRTUAL_ASSETS = 1n;
const ORACLE_PRICE_SCALE = 10n ** 36n;

const mulDivDown = (x: bigint, y: bigint, d: bigint) => (x * y) / d;
const mulDivUp = (x: bigint, y: bigint, d: bigint) => (x * y + (d - 1n)) / d;
export const toAssetsDown = (shares: bigint, totalAssets: bigint, totalShares: bigint) =>
  mulDivDown(shares, totalAssets + VIRTUAL_ASSETS, totalShares + VIRTUAL_SHARES);
export const toAssetsUp = (shares: bigint, totalAssets: bigint, totalShares: bigint) =>
  mulDivUp(shares, totalAssets + VIRTUAL_ASSETS, totalShares + VIRTUAL_SHARES);

/** Morpho's `wTaylorCompounded`: e^(rate·t) − 1 to the third order, in WAD. */
export function wTaylorCompounded(x: bigint, n: bigint): bigint {
  const first = x * n;
  const second = mulDivDown(first, first, 2n * WAD);
  const third = mulDivDown(second, first, 3n * WAD);
  return first + second + third;
}

interface MorphoMarketState {
  totalSupplyAssets: bigint;
  totalSupplyShares: bigint;
  totalBorrowAssets: bigint;
  totalBorrowShares: bigint;
  lastUpdate: bigint;
  fee: bigint;
}

export async function readMorphoSnapshot(
  source: EvmSource,
  market: LendingMarketTarget,
  markets: readonly MorphoMarketParams[],
  accounts: SnapshotAccounts,
  block: { number: number; timestamp: number },
  usdPrice: (token: string) => number | null,
): Promise<MarketSnapshot> {
  const morpho = market.pool;
  const states = await read(
    source,
    markets.flatMap((m): Call[] => [
      { address: morpho, abi: MORPHO_ABI, functionName: 'market', args: [m.id] },
      { address: m.oracle as Address, abi: MORPHO_ORACLE_ABI, functionName: 'price' },
    ]),
    block.number,
  );
  const decimalsOf = (token: string) => market.assets.find((a) => a.address === token)?.decimals ?? 18;
  const symbolOf = (token: string) => market.assets.find((a) => a.address === token)?.symbol ?? token;
  const paramsOf = (m: MorphoMarketParams) => ({
    loanToken: m.loanToken as Address,
    collateralToken: m.collateralToken as Address,
    oracle: m.oracle as Address,
    irm: m.irm as Address,
    lltv: BigInt(m.lltv),
  });
  const raw = markets.map((m, i) => {
    const t = states[i * 2] as readonly bigint[] | undefined;
    if (!t) throw new Error(`lending: morpho market(${m.id}) failed at block ${block.number}`);
    const state: MorphoMarketState = {
      totalSupplyAssets: t[0]!,
      totalSupplyShares: t[1]!,
      totalBorrowAssets: t[2]!,
      totalBorrowShares: t[3]!,
      lastUpdate: t[4]!,
      fee: t[5]!,
    };
    return { m, state, price: states[i * 2 + 1] as bigint | undefined };
  });
  const rates = await read(
    source,
    raw.map(
      ({ m, state }): Call => ({
        address: m.irm as Address,
        abi: MORPHO_IRM_ABI,
        functionName: 'borrowRateView',
        args: [paramsOf(m), state],
      }),
    ),
    block.number,
  );
  // Interest accrued from the market's last update to the block, as Morpho's expectedMarketBalances.
  const accrued = raw.map(({ m, state, price }, i) => {
    const rate = rates[i] as bigint | undefined;
    const elapsed = BigInt(Math.max(0, block.timestamp - Number(state.lastUpdate)));
    const s = { ...state };
    if (rate !== undefined && elapsed > 0n && s.totalBorrowAssets > 0n) {
      const interest = mulDivDown(s.totalBorrowAssets, wTaylorCompounded(rate, elapsed), WAD);
      s.totalBorrowAssets += interest;
      s.totalSupplyAssets += interest;
      if (s.fee > 0n) {
        const feeAmount = mulDivDown(interest, s.fee, WAD);
        const feeShares = mulDivDown(
          feeAmount,
          s.totalSupplyShares + VIRTUAL_SHARES,
          s.totalSupplyAssets - feeAmount + VIRTUAL_ASSETS,
        );
        s.totalSupplyShares += feeShares;
      }
    }
    return { m, state: s, price, ratePerSecond: rate };
  });

  // Positions: those read at this block (all in a full read; else the ones events touched since the base, and the
  // fee recipient, paid in shares at every accrual without an event naming it), the others carried from the base:
  // shares and collateral move only by the account's own events; assets follow from this block's market totals.
  const [feeRecipient] = await read(
    source,
    [{ address: morpho, abi: MORPHO_ABI, functionName: 'feeRecipient' }],
    block.number,
  );
  const fees = typeof feeRecipient === 'string' ? feeRecipient.toLowerCase() : undefined;
  const calls: Call[] = [];
  const plan: { key: string; marketId: string; account: string; at?: number }[] = [];
  for (const key of [...accounts.participants.accounts.keys()].sort()) {
    const [marketId, account] = key.split(':') as [string, string];
    if (!markets.some((m) => m.id === marketId)) continue;
    if (!readsAccount(accounts, key) && account !== fees) {
      plan.push({ key, marketId, account });
      continue;
    }
    plan.push({ key, marketId, account, at: calls.length });
    calls.push({ address: morpho, abi: MORPHO_ABI, functionName: 'position', args: [marketId, account] });
  }
  const results = await read(source, calls, block.number);
  const carry: Record<string, AccountCarry> = {};
  const loanToken = markets[0]?.loanToken ?? '';
  const loanUsd = usdPrice(loanToken);
  const positions: PositionSnapshot[] = [];
  const collateralTotals = new Map<string, bigint>();
  for (const p of plan) {
    const named = accounts.participants.accounts.get(p.key)!;
    const carried = p.at === undefined ? accounts.base![p.key]!.position : undefined;
    const r = carried ? carried.map((x) => BigInt(x)) : (results[p.at!] as readonly bigint[] | undefined);
    if (!r) throw new Error(`lending: morpho position(${p.marketId}, ${p.account}) failed at block ${block.number}`);
    const a = accrued.find((x) => x.m.id === p.marketId)!;
    const [supplyShares, borrowShares, collateral] = r as [bigint, bigint, bigint];
    carry[p.key] = {
      supplied: [...named.supplied].sort(),
      borrowed: [...named.borrowed].sort(),
      position: [supplyShares.toString(), borrowShares.toString(), collateral.toString()],
    };
    const supplied = toAssetsDown(supplyShares, a.state.totalSupplyAssets, a.state.totalSupplyShares);
    const borrowed = toAssetsUp(borrowShares, a.state.totalBorrowAssets, a.state.totalBorrowShares);
    collateralTotals.set(p.marketId, (collateralTotals.get(p.marketId) ?? 0n) + collateral);
    if (supplied === 0n && borrowed === 0n && collateral === 0n) continue;
    const suppliedMap: Record<string, string> = {};
    if (supplied > 0n) suppliedMap[a.m.loanToken] = supplied.toString();
    if (collateral > 0n) suppliedMap[a.m.collateralToken] = collateral.toString();
    // Collateral value in loan token units: collateral · price / 1e36 (raw), then whole loan tokens.
    const collateralInLoanRaw = a.price === undefined ? 0n : mulDivDown(collateral, a.price, ORACLE_PRICE_SCALE);
    const maxBorrowRaw = mulDivDown(collateralInLoanRaw, BigInt(a.m.lltv), WAD);
    const loanDecimals = decimalsOf(a.m.loanToken);
    positions.push({
      account: p.account,
      marketId: p.marketId,
      supplied: suppliedMap,
      borrowed: borrowed > 0n ? { [a.m.loanToken]: borrowed.toString() } : {},
      collateral: collateral > 0n ? [a.m.collateralToken] : [],
      thresholds: collateral > 0n ? { [a.m.collateralToken]: Number(BigInt(a.m.lltv)) / 1e18 } : {},
      bonuses:
        collateral > 0n ? { [a.m.collateralToken]: morphoLiquidationIncentive(Number(BigInt(a.m.lltv)) / 1e18) } : {},
      eMode: 0,
      collateralUsd: toUnits(collateralInLoanRaw, loanDecimals) * (loanUsd ?? 0),
      debtUsd: toUnits(borrowed, loanDecimals) * (loanUsd ?? 0),
      healthFactor: borrowed === 0n ? null : Number((maxBorrowRaw * 10n ** 9n) / borrowed) / 1e9,
    });
  }

  const morphoMarkets: MorphoMarketSnapshot[] = accrued.map(({ m, state, price, ratePerSecond }) => {
    const utilisation =
      state.totalSupplyAssets > 0n ? Number((state.totalBorrowAssets * 10n ** 9n) / state.totalSupplyAssets) / 1e9 : 0;
    const borrowRate = ratePerSecond === undefined ? null : (Number(ratePerSecond) / 1e18) * SECONDS_PER_YEAR;
    const loanDecimals = decimalsOf(m.loanToken);
    const collateralDecimals = decimalsOf(m.collateralToken);
    return {
      id: m.id,
      loanToken: m.loanToken,
      collateralToken: m.collateralToken,
      lltv: Number(BigInt(m.lltv)) / 1e18,
      oracle: m.oracle.toLowerCase(),
      irm: m.irm.toLowerCase(),
      fee: Number(state.fee) / 1e18,
      // Raw loan per raw collateral · 1e36 → whole loan tokens per whole collateral token.
      oraclePrice: price === undefined ? null : (Number(price) / 1e36) * 10 ** (collateralDecimals - loanDecimals),
      totalSupplyRaw: state.totalSupplyAssets.toString(),
      totalBorrowRaw: state.totalBorrowAssets.toString(),
      totalCollateralRaw: (collateralTotals.get(m.id) ?? 0n).toString(),
      borrowRate,
      supplyRate: borrowRate === null ? null : borrowRate * utilisation * (1 - Number(state.fee) / 1e18),
    };
  });

  // The view's reserves: the loan token (summed over the isolated markets) and each collateral.
  const reserves: ReserveSnapshot[] = [];
  const loanDecimals = decimalsOf(loanToken);
  const sum = (xs: readonly string[]) => xs.reduce((s, x) => s + BigInt(x), 0n);
  const totalSupplied = sum(morphoMarkets.map((x) => x.totalSupplyRaw));
  const totalBorrowed = sum(morphoMarkets.map((x) => x.totalBorrowRaw));
  const none = {
    ltv: null,
    liquidationThreshold: null,
    liquidationBonus: null,
    reserveFactor: null,
    supplyCap: null,
    borrowCap: null,
    active: true,
    frozen: false,
    paused: false,
    aToken: null,
    debtToken: null,
  };
  if (loanToken) {
    reserves.push({
      ...none,
      asset: loanToken,
      symbol: symbolOf(loanToken),
      decimals: loanDecimals,
      totalSupplyRaw: totalSupplied.toString(),
      totalBorrowRaw: totalBorrowed.toString(),
      priceUsd: loanUsd,
      ...morphoViewRates(morphoMarkets),
      borrowingEnabled: true,
      collateralEnabled: false,
      optimalUtilisation: MORPHO_TARGET_UTILISATION,
      rateModel: {
        kind: 'morpho-adaptive-curve',
        optimalUtilisation: MORPHO_TARGET_UTILISATION,
        baseRate: null,
        slope1: null,
        slope2: null,
        curveSteepness: MORPHO_CURVE_STEEPNESS,
      },
      isolation: null,
    });
  }
  for (const x of morphoMarkets) {
    const lltv = x.lltv;
    reserves.push({
      ...none,
      asset: x.collateralToken,
      symbol: symbolOf(x.collateralToken),
      decimals: decimalsOf(x.collateralToken),
      totalSupplyRaw: x.totalCollateralRaw,
      totalBorrowRaw: '0',
      priceUsd: x.oraclePrice === null || loanUsd === null ? null : x.oraclePrice * loanUsd,
      supplyRate: 0,
      borrowRate: null,
      ltv: lltv,
      liquidationThreshold: lltv,
      liquidationBonus: morphoLiquidationIncentive(lltv),
      borrowingEnabled: false,
      collateralEnabled: true,
      optimalUtilisation: null,
      rateModel: null,
      isolation: null,
    });
  }
  return {
    chain: market.chain,
    pool: morpho,
    blockNumber: block.number,
    timestamp: block.timestamp,
    reserves,
    positions,
    morphoMarkets,
    carry,
  };
}

/** Morpho Blue's AdaptiveCurveIrm targets 90 % utilisation: the kink of its curve. */
export const MORPHO_TARGET_UTILISATION = 0.9;

/** AdaptiveCurveIrm's CURVE_STEEPNESS (ConstantsLib): the rate at 100 % utilisation is 4 × the rate at target. */
export const MORPHO_CURVE_STEEPNESS = 4;

/** Morpho Blue's liquidation incentive factor: min(1.15, 1 / (1 − 0.3·(1 − lltv))) − 1 (ConstantsLib / Morpho.sol). */
export function morphoLiquidationIncentive(lltv: number): number {
  return Math.min(1.15, 1 / (1 - 0.3 * (1 - lltv))) - 1;
}

/**
 * The rates of a Morpho view's loan token over its isolated markets: the supply rate weighted by each market's
 * supply, the borrow rate by its borrows. With utilisation = Σ borrow / Σ supply this keeps
 * supply_rate ≤ borrow_rate × utilisation, as each market does (Σ Sᵢ·bᵢ·uᵢ·(1 − feeᵢ) ≤ Σ Bᵢ·bᵢ); weighting the
 * supply rate by borrows (lending.liquidity-health before 1.2.0) broke it.
 */
export function morphoViewRates(
  markets: readonly Pick<MorphoMarketSnapshot, 'totalSupplyRaw' | 'totalBorrowRaw' | 'supplyRate' | 'borrowRate'>[],
): { supplyRate: number | null; borrowRate: number | null } {
  const weighted = (f: (x: (typeof markets)[number]) => number | null, by: 'supply' | 'borrow') => {
    let num = 0;
    let den = 0;
    for (const x of markets) {
      const w = Number(BigInt(by === 'supply' ? x.totalSupplyRaw : x.totalBorrowRaw));
      den += w;
      const v = f(x);
      if (v !== null) num += v * w;
    }
    return den > 0 ? num / den : null;
  };
  // To 9 decimals as Aave's ray rates, supply rounded down and borrow up: the rounding keeps the invariant.
  const supply = weighted((x) => x.supplyRate, 'supply');
  const borrow = weighted((x) => x.borrowRate, 'borrow');
  return {
    supplyRate: supply === null ? null : Math.floor(supply * 1e9) / 1e9,
    borrowRate: borrow === null ? null : Math.ceil(borrow * 1e9) / 1e9,
  };
}
