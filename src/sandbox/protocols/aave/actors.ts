/**
 * The actors of the world's Aave-design markets (`aave` and `spark`), plugged into the lending actors' host
 * (protocols/lending/actors.ts), from their own random stream (`lending`):
 *
 * - suppliers deposit every reserve of every market at the first step, then add and withdraw now and then;
 * - borrowers hold one position each (one collateral — a second one for every third safe or leveraged borrower —,
 *   one debt asset) aimed at a health factor by kind: safe (HF 2–4), leveraged (1.2–1.5) and near liquidation
 *   (1.03–1.1, only where the collateral's threshold/LTV gap allows it); they open, repay, add collateral and borrow
 *   more;
 * - loopers stake ETH for the liquid staking token, supply it, switch to the ETH-correlated E-mode and loop: borrow
 *   WETH, wrap it into the token, supply it, until their health factor reaches their target (1.045–1.135);
 * - liquidators read every open position's health factor (`getUserAccountData`) at the start of each step and
 *   liquidate those below 1 (`liquidationCall`, debt to cover uint max: the pool applies the close factor), right
 *   after the block's oracle rounds; from the next block on they sell the seized collateral on the DEX pools back
 *   into the asset they repaid (protocols/uniswap/sales.ts).
 *
 * Amounts are sized with the oracle answers the transactions will meet (the block's feed rounds go first), with
 * margins, so opening transactions never revert; a liquidation may (the position recovered with this block's
 * rounds), and is counted as missed.
 */
import { type Address, decodeFunctionResult, encodeFunctionData, getAddress, type Hex, maxUint256 } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { erc20Abi } from '../../chain/artifacts.js';
import type { ManifestLending, WorldManifest } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import type { LendingPositionState, LendingRuntimeState } from '../../world/state.js';
import { LendingActors, type LendingHost, type SeedReserve } from '../lending/actors.js';
import { finiteHf, needsRead } from '../lending/positions.js';
import { stakedTokenAbi, stEthPerToken } from '../staking/staked-token.js';
import { aavePoolAbi } from './artifacts.js';
import { reserveParams } from './markets.js';
import { AAVE_ETH_EMODE, VARIABLE_RATE_MODE } from './params.js';

/**
 * What the suppliers deposit at the first step, in USD per reserve at scale 1 (times max(scale, 0.3)): mainnet
 * orders of magnitude scaled down like the DEX depths.
 */
export const SUPPLY_USD: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  aave: { USDC: 20e6, USDT: 12e6, DAI: 8e6, WETH: 30e6, WBTC: 8e6, wstETH: 4e6, LINK: 1e6 },
  spark: { DAI: 15e6, USDC: 6e6, WETH: 15e6, wstETH: 2e6, WBTC: 3e6 },
};

/** Opening positions: collateral in USD, log-normal (median, log-sd); loopers' own stake before looping. */
const POSITION_USD = { median: 150e3, sigma: 1.1 } as const;
const LOOPER_USD = { median: 120e3, sigma: 0.7 } as const;
/** A single borrow never exceeds this share of the debt reserve's initial supply, nor half its free liquidity. */
const MAX_BORROW_SHARE = 0.04;
/** Safety margin under the LTV when borrowing (oracle rounds, interest within the block). */
const LTV_MARGIN = 0.995;
const MAX_LOOPS = 30;

const GAS_LEND = {
  supply: 400_000n,
  borrow: 600_000n,
  repay: 400_000n,
  withdraw: 500_000n,
  liquidation: 1_200_000n,
  eMode: 200_000n,
  wrap: 150_000n,
} as const;

interface AccountReading {
  readonly collateralBase: bigint;
  readonly debtBase: bigint;
  readonly healthFactor: bigint;
}

export interface AaveReading {
  /** By position index: `getUserAccountData` of its owner in its market (open positions only). */
  readonly accounts: Map<number, AccountReading>;
  /** By `protocol|symbol`: the underlying held by the aToken (what can be borrowed or withdrawn), raw. */
  readonly liquidity: Map<string, bigint>;
}

const WAD = 10n ** 18n;

export class AaveActors extends LendingActors<AaveReading> {
  /** Two to five suppliers fund each reserve at the first step. */
  protected readonly extraSeedSuppliers = 4;
  private readonly markets: readonly ManifestLending['aave'][number][];

  constructor(
    private readonly manifest: WorldManifest,
    state: LendingRuntimeState,
    host: LendingHost,
  ) {
    super(state, host);
    this.markets = manifest.lending?.aave ?? [];
  }

  private market(protocol: string) {
    const m = this.markets.find((x) => x.protocol === protocol);
    if (!m) throw new Error(`sandbox state: no lending market ${protocol}`);
    return m;
  }

  /** Reads every open position's account data and every reserve's free liquidity at the newest block. */
  async read(now: number): Promise<AaveReading> {
    const calls: { method: string; params: unknown[] }[] = [];
    const open = this.state.positions.flatMap((p, i) => (p.open && needsRead(p, now) ? [i] : []));
    for (const i of open) {
      const p = this.state.positions[i]!;
      calls.push({
        method: 'eth_call',
        params: [
          {
            to: this.market(p.protocol).pool,
            data: encodeFunctionData({
              abi: aavePoolAbi,
              functionName: 'getUserAccountData',
              args: [this.host.agents[p.owner]!.address],
            }),
          },
          'latest',
        ],
      });
    }
    const reserves = this.markets.flatMap((m) => m.reserves.map((r) => ({ m, r })));
    for (const { r } of reserves) {
      calls.push({
        method: 'eth_call',
        params: [
          { to: r.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [r.aToken] }) },
          'latest',
        ],
      });
    }
    const results = calls.length ? await this.host.session.rpc.batchResults<Hex>(calls) : [];
    const accounts = new Map<number, AccountReading>();
    open.forEach((i, k) => {
      const [collateralBase, debtBase, , , , healthFactor] = decodeFunctionResult({
        abi: aavePoolAbi,
        functionName: 'getUserAccountData',
        data: results[k]!,
      });
      accounts.set(i, { collateralBase, debtBase, healthFactor });
      const p = this.state.positions[i]!;
      p.hf = finiteHf(Number(healthFactor) / 1e18);
      p.readAt = now;
    });
    const liquidity = new Map<string, bigint>();
    reserves.forEach(({ m, r }, k) => {
      liquidity.set(`${m.protocol}|${r.symbol}`, BigInt(results[open.length + k]!));
    });
    return { accounts, liquidity };
  }

  protected marketKeys(): readonly string[] {
    return this.markets.map((m) => m.protocol);
  }

  /** By `protocol|symbol`: the underlying held by the aToken. */
  protected freeLiquidity(reading: AaveReading): Map<string, bigint> {
    return new Map(reading.liquidity);
  }

  protected closedPositions(protocol: string): LendingPositionState[] {
    return this.positionsOf(protocol, false);
  }

  /** Loopers set up their loop once and then leave it as it is. */
  protected activePositions(protocol: string): LendingPositionState[] {
    return this.positionsOf(protocol, true).filter((p) => p.kind !== 'looper');
  }

  private positionsOf(protocol: string, open: boolean): LendingPositionState[] {
    return this.state.positions.filter((p) => p.protocol === protocol && p.open === open);
  }

  /** The account data of a position's owner in its market, if the liquidators read it this step. */
  private account(p: LendingPositionState, reading: AaveReading): AccountReading | undefined {
    return reading.accounts.get(this.state.positions.indexOf(p));
  }

  private initialSupplyUsd(protocol: string, symbol: string): number {
    return this.scaledUsd(SUPPLY_USD[protocol]?.[symbol] ?? 1e6);
  }

  // --- suppliers ------------------------------------------------------------------------------------------------

  private supply(agent: Agent, protocol: string, symbol: string, amount: bigint, kind: 'supplier' | 'borrower'): void {
    if (amount <= 0n) return;
    const market = this.market(protocol);
    const token = this.host.token(symbol);
    this.host.spend(agent, symbol, amount);
    this.host.approve(agent, token.address, market.pool);
    this.host.session.send(agent, {
      to: market.pool,
      data: encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'supply',
        args: [token.address, amount, agent.address, 0],
      }),
      gas: GAS_LEND.supply,
      kind: 'lend',
      onMined: (ok) => {
        if (ok) this.state.stats.supplies += 1;
      },
    });
    this.booked(agent, `${protocol}|${symbol}`, amount, kind === 'supplier');
  }

  /** Every reserve of every market, with its initial supply. */
  protected seedReserves(): SeedReserve[] {
    return this.markets.flatMap((m) =>
      m.reserves.map((r) => ({
        market: m.protocol,
        symbol: r.symbol,
        usd: this.initialSupplyUsd(m.protocol, r.symbol),
      })),
    );
  }

  protected deposit(agent: Agent, reserve: SeedReserve, amount: bigint): void {
    this.supply(agent, reserve.market, reserve.symbol, amount, 'supplier');
  }

  protected supplyMore(protocol: string): void {
    const market = this.market(protocol);
    const r = this.rng.pick(market.reserves);
    const usd = this.initialSupplyUsd(protocol, r.symbol) * this.rng.uniform(0.005, 0.03);
    this.supply(this.rng.pick(this.suppliers()), protocol, r.symbol, this.raw(r.symbol, usd), 'supplier');
  }

  protected holds(protocol: string, key: string): boolean {
    return key.startsWith(`${protocol}|`);
  }

  protected withdraw(agent: Agent, key: string, amount: bigint): void {
    const [protocol, symbol] = key.split('|') as [string, string];
    this.host.session.send(agent, {
      to: this.market(protocol).pool,
      data: encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'withdraw',
        args: [this.host.token(symbol).address, amount, agent.address],
      }),
      gas: GAS_LEND.withdraw,
      kind: 'lend',
      onMined: (ok) => {
        if (ok) this.state.stats.withdrawals += 1;
      },
    });
  }

  // --- borrowers ------------------------------------------------------------------------------------------------

  /** A borrow the reserve can serve: capped by its initial supply share and half its free liquidity. */
  private capBorrow(protocol: string, symbol: string, amount: bigint): bigint {
    const key = `${protocol}|${symbol}`;
    const free = this.liquidity.get(key) ?? 0n;
    const cap = this.raw(symbol, this.initialSupplyUsd(protocol, symbol) * MAX_BORROW_SHARE);
    let x = amount < cap ? amount : cap;
    if (x * 2n > free) x = free / 2n;
    return x;
  }

  private borrow(agent: Agent, p: LendingPositionState, amount: bigint): void {
    if (amount <= 0n) return;
    delete p.readAt;
    const key = `${p.protocol}|${p.debt}`;
    this.liquidity.set(key, (this.liquidity.get(key) ?? 0n) - amount);
    const token = this.host.token(p.debt);
    this.host.session.send(agent, {
      to: this.market(p.protocol).pool,
      data: encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'borrow',
        args: [token.address, amount, VARIABLE_RATE_MODE, 0, agent.address],
      }),
      gas: GAS_LEND.borrow,
      kind: 'lend',
      onMined: (ok) => {
        if (ok) this.state.stats.borrows += 1;
      },
    });
    agent.plan(token.address.toLowerCase(), amount);
    p.debtRaw = (BigInt(p.debtRaw) + amount).toString();
  }

  protected open(p: LendingPositionState): void {
    const agent = this.host.agents[p.owner]!;
    if (p.kind === 'looper') {
      this.openLoop(agent, p);
      return;
    }
    const usd = this.rng.logNormal(POSITION_USD.median, POSITION_USD.sigma);
    // With a second collateral: 60 % of the value in the first, 40 % in the second; the debt is sized on both
    // (Σ value × threshold / target HF, and under Σ value × LTV).
    const legs = p.secondCollateral
      ? [
          { symbol: p.collateral, usd: usd * 0.6 },
          { symbol: p.secondCollateral, usd: usd * 0.4 },
        ]
      : [{ symbol: p.collateral, usd }];
    let byThreshold = 0;
    let byLtv = 0;
    const amounts = legs.map((leg) => {
      const params = reserveParams(leg.symbol)!;
      const raw = this.raw(leg.symbol, leg.usd);
      const value = this.usd(leg.symbol, raw);
      byThreshold += (value * params.liquidationThresholdBps) / 1e4;
      byLtv += (value * params.ltvBps) / 1e4;
      return raw;
    });
    const debtUsd = Math.min(byThreshold / p.targetHf, byLtv * LTV_MARGIN);
    const debt = this.capBorrow(p.protocol, p.debt, this.raw(p.debt, debtUsd));
    if (amounts.some((x) => x === 0n) || debt === 0n) return;
    legs.forEach((leg, i) => {
      this.supply(agent, p.protocol, leg.symbol, amounts[i]!, 'borrower');
    });
    p.collateralRaw = (BigInt(p.collateralRaw) + amounts[0]!).toString();
    this.borrow(agent, p, debt);
    p.open = true;
    delete p.readAt;
  }

  /**
   * Stake ETH for the liquid staking token, supply it, enter the ETH-correlated E-mode, then loop (borrow WETH,
   * wrap it, supply the tokens) until the debt reaches what the target health factor allows.
   */
  private openLoop(agent: Agent, p: LendingPositionState): void {
    const market = this.market(p.protocol);
    const lst = this.host.token(p.collateral);
    const weth = this.host.token(p.debt);
    const ltv = (AAVE_ETH_EMODE.ltvBps / 1e4) * LTV_MARGIN;
    const lt = AAVE_ETH_EMODE.liquidationThresholdBps / 1e4;
    const first = this.raw(p.collateral, this.rng.logNormal(LOOPER_USD.median, LOOPER_USD.sigma));
    if (first === 0n) return;
    this.supply(agent, p.protocol, p.collateral, first, 'borrower');
    this.host.session.send(agent, {
      to: market.pool,
      data: encodeFunctionData({ abi: aavePoolAbi, functionName: 'setUserEMode', args: [AAVE_ETH_EMODE.id] }),
      gas: GAS_LEND.eMode,
      kind: 'lend',
    });
    const pLst = this.host.oracleUsd(p.collateral);
    const pWeth = this.host.oracleUsd(p.debt);
    const rate = Number(this.rateAt(lst.address)) / 1e18;
    // Collateral value per unit of WETH value wrapped (the oracle's market price against the exchange rate).
    const k = pLst / (rate * pWeth);
    let collateralUsd = this.usd(p.collateral, first);
    const targetDebtUsd = (lt * collateralUsd) / (p.targetHf - lt * k);
    let debtUsd = 0;
    let collateralRaw = first;
    for (let loop = 0; loop < MAX_LOOPS; loop++) {
      const room = Math.min(collateralUsd * ltv - debtUsd, targetDebtUsd - debtUsd);
      if (room < Math.max(100, targetDebtUsd * 0.002)) break;
      const amount = this.capBorrow(p.protocol, p.debt, this.raw(p.debt, room));
      if (amount === 0n) break;
      this.borrow(agent, p, amount);
      // Wrap the borrowed WETH into the token and supply it.
      this.host.approve(agent, weth.address, lst.address);
      this.host.spend(agent, p.debt, amount);
      const minted = (amount * WAD) / this.rateAt(lst.address);
      this.host.session.send(agent, {
        to: lst.address,
        data: encodeFunctionData({ abi: stakedTokenAbi, functionName: 'wrap', args: [amount] }),
        gas: GAS_LEND.wrap,
        kind: 'lend',
      });
      agent.plan(lst.address.toLowerCase(), minted);
      this.supply(agent, p.protocol, p.collateral, minted, 'borrower');
      collateralRaw += minted;
      const borrowedUsd = this.usd(p.debt, amount);
      debtUsd += borrowedUsd;
      collateralUsd += borrowedUsd * k;
    }
    p.collateralRaw = (BigInt(p.collateralRaw) + collateralRaw).toString();
    p.open = true;
    delete p.readAt;
  }

  /** The liquid staking token's exchange rate in this block (the contract's formula). */
  private rateAt(token: Address): bigint {
    const t = this.manifest.tokens.find((x) => x.address.toLowerCase() === token.toLowerCase());
    const plan = TOKEN_PLAN.find((x) => x.symbol === t?.symbol)?.liquidStaking;
    if (!plan) throw new Error(`sandbox: ${token} is not a liquid staking token`);
    return stEthPerToken(plan, this.manifest.genesisTimestamp, this.host.now);
  }

  /** Debt of a position in raw units of its debt asset, from the account data (one debt asset per position). */
  private debtRaw(p: LendingPositionState, account: AccountReading | undefined): bigint {
    if (!account) return 0n;
    return this.raw(p.debt, Number(account.debtBase) / 1e8);
  }

  protected repay(p: LendingPositionState, reading: AaveReading): void {
    const account = this.account(p, reading);
    const agent = this.host.agents[p.owner]!;
    delete p.readAt;
    const debt = this.debtRaw(p, account);
    if (debt === 0n) return;
    const market = this.market(p.protocol);
    const token = this.host.token(p.debt);
    const full = this.rng.chance(0.35);
    const amount = full
      ? (debt * 105n) / 100n + 1n
      : (debt * BigInt(Math.round(this.rng.uniform(0.2, 0.6) * 1000))) / 1000n;
    if (amount === 0n) return;
    this.host.spend(agent, p.debt, amount);
    this.host.approve(agent, token.address, market.pool);
    this.host.session.send(agent, {
      to: market.pool,
      data: encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'repay',
        args: [token.address, full ? maxUint256 : amount, VARIABLE_RATE_MODE, agent.address],
      }),
      gas: GAS_LEND.repay,
      kind: 'lend',
      onMined: (ok) => {
        if (ok) this.state.stats.repays += 1;
      },
    });
    if (!full) {
      p.debtRaw = (BigInt(p.debtRaw) > amount ? BigInt(p.debtRaw) - amount : 0n).toString();
      return;
    }
    // Repaid in full: take the collateral back; the position is closed and may open again later.
    for (const symbol of p.secondCollateral ? [p.collateral, p.secondCollateral] : [p.collateral]) {
      this.host.session.send(agent, {
        to: market.pool,
        data: encodeFunctionData({
          abi: aavePoolAbi,
          functionName: 'withdraw',
          args: [this.host.token(symbol).address, maxUint256, agent.address],
        }),
        gas: GAS_LEND.withdraw,
        kind: 'lend',
        onMined: (ok) => {
          if (ok) this.state.stats.withdrawals += 1;
        },
      });
    }
    p.open = false;
    p.debtRaw = '0';
    p.collateralRaw = '0';
  }

  protected addCollateral(p: LendingPositionState): void {
    const amount = (BigInt(p.collateralRaw) * BigInt(Math.round(this.rng.uniform(0.05, 0.3) * 1000))) / 1000n;
    if (amount === 0n) return;
    delete p.readAt;
    this.supply(this.host.agents[p.owner]!, p.protocol, p.collateral, amount, 'borrower');
    p.collateralRaw = (BigInt(p.collateralRaw) + amount).toString();
  }

  /** Borrows back up to the target when the position has drifted well above it. */
  protected borrowMore(p: LendingPositionState, reading: AaveReading): void {
    const account = this.account(p, reading);
    if (!account || account.debtBase === 0n) return;
    const hf = Number(account.healthFactor) / 1e18;
    if (!(hf > p.targetHf * 1.1)) return;
    const debtUsd = Number(account.debtBase) / 1e8;
    // The lower LTV of the position's collaterals bounds the whole collateral (a margin when there are two).
    const ltvBps = Math.min(
      ...[p.collateral, p.secondCollateral].flatMap((x) => (x ? [reserveParams(x)!.ltvBps] : [])),
    );
    const maxUsd = (Number(account.collateralBase) / 1e8) * (ltvBps / 1e4) * LTV_MARGIN - debtUsd;
    const extraUsd = Math.min(debtUsd * (hf / p.targetHf - 1), maxUsd * 0.9);
    if (!(extraUsd > 10)) return;
    this.borrow(this.host.agents[p.owner]!, p, this.capBorrow(p.protocol, p.debt, this.raw(p.debt, extraUsd)));
  }

  // --- liquidators ----------------------------------------------------------------------------------------------

  protected liquidate(reading: AaveReading): void {
    const nextLiquidator = this.liquidatorRota();
    if (!nextLiquidator) return;
    for (const [i, account] of reading.accounts) {
      if (account.debtBase === 0n || account.healthFactor >= WAD) continue;
      const p = this.state.positions[i]!;
      delete p.readAt;
      const liquidator = nextLiquidator();
      const market = this.market(p.protocol);
      const debtToken = this.host.token(p.debt);
      // Close factor: half the debt, all of it below HF 0.95; a margin for the interest and the oracle rounds.
      const debt = this.debtRaw(p, account);
      const cover = account.healthFactor < (WAD * 95n) / 100n ? debt : debt / 2n;
      this.host.spend(liquidator, p.debt, (cover * 11n) / 10n + 1n);
      this.host.approve(liquidator, debtToken.address, market.pool);
      // With two collaterals: the first, until a liquidation of it reverts (e.g. nothing of it left), then the
      // other, and so on.
      const collateral = p.secondCollateral && p.liquidateSecond ? p.secondCollateral : p.collateral;
      this.host.session.send(liquidator, {
        to: market.pool,
        data: encodeFunctionData({
          abi: aavePoolAbi,
          functionName: 'liquidationCall',
          args: [
            this.host.token(collateral).address,
            debtToken.address,
            getAddress(this.host.agents[p.owner]!.address),
            maxUint256,
            false,
          ],
        }),
        gas: GAS_LEND.liquidation,
        kind: 'liquidation',
        onMined: this.liquidationMined(p, liquidator, collateral, () => {
          if (p.secondCollateral) p.liquidateSecond = !p.liquidateSecond;
        }),
      });
    }
  }
}
