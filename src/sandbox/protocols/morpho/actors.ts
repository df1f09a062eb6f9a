/**
 * Morpho Blue's actors (suppliers of USDC, borrowers of every kind, liquidators), plugged into the lending actors'
 * host (protocols/lending/actors.ts) like the Aave markets' actors, from their own random stream (`morpho`). A
 * position is one market's collateral and USDC debt; liquidators repay all the borrow shares, half of them, or
 * seize all the collateral, depending on what the collateral covers with Morpho's incentive.
 */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import type { Agent } from '../../chain/agent.js';
import type { RpcReceipt } from '../../chain/receipts.js';
import type { ManifestMorpho } from '../../world/manifest.js';
import type { LendingPositionState, MorphoRuntimeState } from '../../world/state.js';
import { LendingActors, type LendingHost, type SeedReserve } from '../lending/actors.js';
import { finiteHf, needsRead } from '../lending/positions.js';
import { type MarketParams, MORPHO_PLAN, morphoAbi, morphoOracleAbi, ORACLE_PRICE_SCALE, WAD } from './deploy.js';

/** USDC the suppliers deposit per market at the first step, at scale 1 (times max(scale, 0.3)). */
const SUPPLY_USD: Readonly<Record<string, number>> = { WETH: 10e6, wstETH: 6e6, WBTC: 4e6 };

const POSITION_USD = { median: 100e3, sigma: 1 } as const;
const MAX_BORROW_SHARE = 0.06;
const GAS_MORPHO = {
  supply: 300_000n,
  borrow: 400_000n,
  repay: 300_000n,
  withdraw: 300_000n,
  liquidate: 600_000n,
} as const;

interface MarketReading {
  readonly totalSupplyAssets: bigint;
  readonly totalBorrowAssets: bigint;
  readonly totalBorrowShares: bigint;
  readonly price: bigint;
}

interface PositionReading {
  readonly borrowShares: bigint;
  readonly collateral: bigint;
}

export interface MorphoReading {
  readonly markets: Map<string, MarketReading>;
  readonly positions: Map<number, PositionReading>;
}

export class MorphoActors extends LendingActors<MorphoReading> {
  /** Two to four suppliers fund each market at the first step. */
  protected readonly extraSeedSuppliers = 3;
  /** Positions liquidated in the block being built: their owners leave them alone until the next block. */
  private readonly liquidating = new Set<LendingPositionState>();

  constructor(
    private readonly morpho: ManifestMorpho,
    state: MorphoRuntimeState,
    host: LendingHost,
  ) {
    super(state, host);
  }

  private params(id: string): MarketParams {
    const m = this.morpho.markets.find((x) => x.id === id);
    if (!m) throw new Error(`sandbox state: no Morpho market ${id}`);
    return {
      loanToken: m.loanToken,
      collateralToken: m.collateralToken,
      oracle: m.oracle,
      irm: m.irm,
      lltv: BigInt(m.lltv),
    };
  }

  async read(now: number): Promise<MorphoReading> {
    const call = (to: Address, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
    const open = this.state.positions.flatMap((p, i) => (p.open && needsRead(p, now) ? [i] : []));
    const calls = [
      ...this.morpho.markets.flatMap((m) => [
        call(this.morpho.morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'market', args: [m.id as Hex] })),
        call(m.oracle, encodeFunctionData({ abi: morphoOracleAbi, functionName: 'price' })),
      ]),
      ...open.map((i) => {
        const p = this.state.positions[i]!;
        return call(
          this.morpho.morpho,
          encodeFunctionData({
            abi: morphoAbi,
            functionName: 'position',
            args: [p.marketId as Hex, this.host.agents[p.owner]!.address],
          }),
        );
      }),
    ];
    const results = await this.host.session.rpc.batchResults<Hex>(calls);
    const markets = new Map<string, MarketReading>();
    this.morpho.markets.forEach((m, i) => {
      const [totalSupplyAssets, , totalBorrowAssets, totalBorrowShares] = decodeFunctionResult({
        abi: morphoAbi,
        functionName: 'market',
        data: results[2 * i]!,
      });
      markets.set(m.id, {
        totalSupplyAssets,
        totalBorrowAssets,
        totalBorrowShares,
        price: BigInt(results[2 * i + 1]!),
      });
    });
    const positions = new Map<number, PositionReading>();
    const offset = 2 * this.morpho.markets.length;
    open.forEach((i, k) => {
      const [, borrowShares, collateral] = decodeFunctionResult({
        abi: morphoAbi,
        functionName: 'position',
        data: results[offset + k]!,
      });
      positions.set(i, { borrowShares, collateral });
      const p = this.state.positions[i]!;
      const market = markets.get(p.marketId!);
      const debt = this.debtOf(market, { borrowShares, collateral });
      const maxBorrow = market
        ? (((collateral * market.price) / ORACLE_PRICE_SCALE) * this.params(p.marketId!).lltv) / WAD
        : 0n;
      p.hf = finiteHf(debt === 0n ? Number.POSITIVE_INFINITY : Number(maxBorrow) / Number(debt));
      p.readAt = now;
    });
    return { markets, positions };
  }

  protected marketKeys(): readonly string[] {
    return this.morpho.markets.map((m) => m.id);
  }

  protected override begin(reading: MorphoReading): void {
    this.liquidating.clear();
    super.begin(reading);
  }

  /** By market id: supplied less borrowed. */
  protected freeLiquidity(reading: MorphoReading): Map<string, bigint> {
    const liquidity = new Map<string, bigint>();
    for (const [id, m] of reading.markets) liquidity.set(id, m.totalSupplyAssets - m.totalBorrowAssets);
    return liquidity;
  }

  protected closedPositions(id: string): LendingPositionState[] {
    return this.positionsOf(id, false);
  }

  protected activePositions(id: string): LendingPositionState[] {
    return this.positionsOf(id, true);
  }

  private positionsOf(id: string, open: boolean): LendingPositionState[] {
    return this.state.positions.filter((p) => p.marketId === id && p.open === open && !this.liquidating.has(p));
  }

  /** A position's shares and collateral, if the liquidators read it this step. */
  private position(p: LendingPositionState, reading: MorphoReading): PositionReading | undefined {
    return reading.positions.get(this.state.positions.indexOf(p));
  }

  // --- amounts --------------------------------------------------------------------------------------------------

  /** The loan assets `collateral` is worth at the oracle price of this block's rounds (not yet on chain). */
  private collateralValue(p: LendingPositionState, collateral: bigint): bigint {
    return this.raw(p.debt, this.usd(p.collateral, collateral));
  }

  /** USDC the suppliers deposit in a market at the first step. */
  private initialSupplyUsd(id: string): number {
    const m = this.morpho.markets.find((x) => x.id === id)!;
    return this.scaledUsd(SUPPLY_USD[m.collateralSymbol] ?? 2e6);
  }

  private debtOf(market: MarketReading | undefined, position: PositionReading | undefined): bigint {
    if (!market || !position || market.totalBorrowShares === 0n) return 0n;
    return (
      (position.borrowShares * market.totalBorrowAssets + market.totalBorrowShares - 1n) / market.totalBorrowShares
    );
  }

  // --- transactions ---------------------------------------------------------------------------------------------

  private send(
    agent: Agent,
    data: Hex,
    gas: bigint,
    kind: 'lend' | 'liquidation',
    onMined?: (ok: boolean, receipt: RpcReceipt) => void,
  ) {
    this.host.session.send(agent, { to: this.morpho.morpho, data, gas, kind, ...(onMined ? { onMined } : {}) });
  }

  private pay(agent: Agent, symbol: string, amount: bigint): void {
    this.host.spend(agent, symbol, amount);
    this.host.approve(agent, this.host.token(symbol).address, this.morpho.morpho);
  }

  private supply(agent: Agent, id: string, amount: bigint): void {
    if (amount <= 0n) return;
    this.pay(agent, MORPHO_PLAN.loan, amount);
    this.send(
      agent,
      encodeFunctionData({
        abi: morphoAbi,
        functionName: 'supply',
        args: [this.params(id), amount, 0n, agent.address, '0x'],
      }),
      GAS_MORPHO.supply,
      'lend',
      (ok) => {
        if (ok) this.state.stats.supplies += 1;
      },
    );
    this.booked(agent, id, amount, true);
  }

  /** Every market's loan asset, with its initial supply. */
  protected seedReserves(): SeedReserve[] {
    return this.morpho.markets.map((m) => ({
      market: m.id,
      symbol: MORPHO_PLAN.loan,
      usd: this.initialSupplyUsd(m.id),
    }));
  }

  protected deposit(agent: Agent, reserve: SeedReserve, amount: bigint): void {
    this.supply(agent, reserve.market, amount);
  }

  protected supplyMore(id: string): void {
    const usd = this.initialSupplyUsd(id) * this.rng.uniform(0.005, 0.03);
    this.supply(this.rng.pick(this.suppliers()), id, this.raw(MORPHO_PLAN.loan, usd));
  }

  protected holds(id: string, key: string): boolean {
    return key === id;
  }

  protected withdraw(agent: Agent, id: string, amount: bigint): void {
    this.send(
      agent,
      encodeFunctionData({
        abi: morphoAbi,
        functionName: 'withdraw',
        args: [this.params(id), amount, 0n, agent.address, agent.address],
      }),
      GAS_MORPHO.withdraw,
      'lend',
      (ok) => {
        if (ok) this.state.stats.withdrawals += 1;
      },
    );
  }

  private borrow(agent: Agent, p: LendingPositionState, amount: bigint): void {
    const id = p.marketId!;
    delete p.readAt;
    const free = this.liquidity.get(id) ?? 0n;
    const cap = this.raw(MORPHO_PLAN.loan, this.initialSupplyUsd(id) * MAX_BORROW_SHARE);
    let x = amount < cap ? amount : cap;
    if (x * 2n > free) x = free / 2n;
    if (x <= 0n) return;
    this.liquidity.set(id, free - x);
    this.send(
      agent,
      encodeFunctionData({
        abi: morphoAbi,
        functionName: 'borrow',
        args: [this.params(id), x, 0n, agent.address, agent.address],
      }),
      GAS_MORPHO.borrow,
      'lend',
      (ok) => {
        if (ok) this.state.stats.borrows += 1;
      },
    );
    agent.plan(this.host.token(p.debt).address.toLowerCase(), x);
    p.debtRaw = (BigInt(p.debtRaw) + x).toString();
  }

  private supplyCollateral(agent: Agent, p: LendingPositionState, amount: bigint): void {
    delete p.readAt;
    this.pay(agent, p.collateral, amount);
    this.send(
      agent,
      encodeFunctionData({
        abi: morphoAbi,
        functionName: 'supplyCollateral',
        args: [this.params(p.marketId!), amount, agent.address, '0x'],
      }),
      GAS_MORPHO.supply,
      'lend',
    );
    p.collateralRaw = (BigInt(p.collateralRaw) + amount).toString();
  }

  protected open(p: LendingPositionState): void {
    const agent = this.host.agents[p.owner]!;
    const collateral = this.raw(p.collateral, this.rng.logNormal(POSITION_USD.median, POSITION_USD.sigma));
    if (collateral === 0n) return;
    const lltv = Number(this.params(p.marketId!).lltv) / 1e18;
    // Borrow to the target, and never past 99.5 % of the LLTV (the block's oracle answer is the one we size with).
    const ratio = Math.min(lltv / p.targetHf, lltv * 0.995);
    const debt = (this.collateralValue(p, collateral) * BigInt(Math.floor(ratio * 1e6))) / 1_000_000n;
    this.supplyCollateral(agent, p, collateral);
    this.borrow(agent, p, debt);
    p.open = true;
  }

  protected repay(p: LendingPositionState, reading: MorphoReading): void {
    const position = this.position(p, reading);
    if (!position || position.borrowShares === 0n) return;
    const agent = this.host.agents[p.owner]!;
    const params = this.params(p.marketId!);
    delete p.readAt;
    const full = this.rng.chance(0.35);
    const debt = BigInt(p.debtRaw);
    if (full) {
      // Repay by shares (exactly the debt), then take the collateral back: the position closes.
      this.pay(agent, p.debt, (debt * 105n) / 100n + 1_000_000n);
      this.send(
        agent,
        encodeFunctionData({
          abi: morphoAbi,
          functionName: 'repay',
          args: [params, 0n, position.borrowShares, agent.address, '0x'],
        }),
        GAS_MORPHO.repay,
        'lend',
        (ok) => {
          if (ok) this.state.stats.repays += 1;
        },
      );
      this.send(
        agent,
        encodeFunctionData({
          abi: morphoAbi,
          functionName: 'withdrawCollateral',
          args: [params, position.collateral, agent.address, agent.address],
        }),
        GAS_MORPHO.withdraw,
        'lend',
      );
      p.open = false;
      p.debtRaw = '0';
      p.collateralRaw = '0';
      return;
    }
    const shares = (position.borrowShares * BigInt(Math.round(this.rng.uniform(0.2, 0.6) * 1000))) / 1000n;
    if (shares === 0n) return;
    this.pay(agent, p.debt, debt);
    this.send(
      agent,
      encodeFunctionData({ abi: morphoAbi, functionName: 'repay', args: [params, 0n, shares, agent.address, '0x'] }),
      GAS_MORPHO.repay,
      'lend',
      (ok) => {
        if (ok) this.state.stats.repays += 1;
      },
    );
  }

  protected addCollateral(p: LendingPositionState): void {
    const amount = (BigInt(p.collateralRaw) * BigInt(Math.round(this.rng.uniform(0.05, 0.3) * 1000))) / 1000n;
    if (amount > 0n) this.supplyCollateral(this.host.agents[p.owner]!, p, amount);
  }

  protected borrowMore(p: LendingPositionState, reading: MorphoReading): void {
    const position = this.position(p, reading);
    const debt = this.debtOf(reading.markets.get(p.marketId!), position);
    if (!position || debt === 0n) return;
    const lltv = Number(this.params(p.marketId!).lltv) / 1e18;
    const value = Number(this.collateralValue(p, position.collateral));
    const hf = (value * lltv) / Number(debt);
    if (!(hf > p.targetHf * 1.1)) return;
    const extra = Math.min(Number(debt) * (hf / p.targetHf - 1), (value * lltv * 0.995 - Number(debt)) * 0.9);
    if (extra > 0) this.borrow(this.host.agents[p.owner]!, p, BigInt(Math.floor(extra)));
  }

  // --- liquidators ----------------------------------------------------------------------------------------------

  protected liquidate(reading: MorphoReading): void {
    const nextLiquidator = this.liquidatorRota();
    if (!nextLiquidator) return;
    for (const [i, position] of reading.positions) {
      const p = this.state.positions[i]!;
      const market = reading.markets.get(p.marketId!);
      if (!market || market.price === 0n || position.borrowShares === 0n) continue;
      const params = this.params(p.marketId!);
      const debt = this.debtOf(market, position);
      const maxBorrow = (((position.collateral * market.price) / ORACLE_PRICE_SCALE) * params.lltv) / WAD;
      if (debt <= maxBorrow) continue;
      // Morpho's incentive: min(1.15, 1 / (1 − 0.3 × (1 − LLTV))). Repay all the borrow shares when the collateral
      // covers them with the incentive, seize all the collateral when it clearly does not (the rest of the debt is
      // then bad debt); in between (this block's oracle round may tip it either way) repay half the shares.
      const lif = (WAD * WAD) / (WAD - (3n * (WAD - params.lltv)) / 10n);
      const incentive = lif < (115n * WAD) / 100n ? lif : (115n * WAD) / 100n;
      const seizedIfAll = (((debt * incentive) / WAD) * ORACLE_PRICE_SCALE) / market.price;
      const mode =
        seizedIfAll * 100n < position.collateral * 97n
          ? 'all-shares'
          : seizedIfAll * 100n > position.collateral * 103n
            ? 'all-collateral'
            : 'half-shares';
      const seizedAssets = mode === 'all-collateral' ? position.collateral : 0n;
      const repaidShares =
        mode === 'all-shares' ? position.borrowShares : mode === 'half-shares' ? position.borrowShares / 2n : 0n;
      const liquidator = nextLiquidator();
      this.liquidating.add(p);
      delete p.readAt;
      this.pay(liquidator, p.debt, (debt * 102n) / 100n + 1_000_000n);
      this.send(
        liquidator,
        encodeFunctionData({
          abi: morphoAbi,
          functionName: 'liquidate',
          args: [params, this.host.agents[p.owner]!.address, seizedAssets, repaidShares, '0x'],
        }),
        GAS_MORPHO.liquidate,
        'liquidation',
        this.liquidationMined(p, liquidator, p.collateral),
      );
    }
  }
}
